/**
 * AI-readable docs, written after the site is built:
 *
 * - `llms.txt` — the site in one Markdown index (https://llmstxt.org): every
 *   guide and API page with its one-line front-matter `description`;
 * - `llms-full.txt` — the guides in full, then the API reference, as
 *   Markdown;
 * - a Markdown twin of each guide next to its page (`docs/intro` →
 *   `docs/intro.md`), which the "Copy page as Markdown" button fetches.
 *
 * It also writes `robots.txt`, which points at the sitemap.
 *
 * With cut releases, `llms.txt` and `llms-full.txt` describe the version
 * served under /docs/ (the newest release); every version's guides get
 * their twin, for the button on each.
 *
 * The twins are made from the `.mdx` sources: front matter becomes a title
 * and a summary, MDX imports and tab wrappers go, `<CodeBlock>`s that show a
 * workspace file (raw-loader imports) get that file's text, and site links
 * become absolute URLs so the Markdown makes sense on its own. The twins are
 * public: an import that resolves outside the repository (`@site/../x`, or a
 * symbolic link that leads out) fails the build instead of being inlined.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import type { LoadContext, Plugin } from "@docusaurus/types";

/** What the plugin needs to know of a doc (a subset of the docs plugin's metadata). */
type DocInfo = {
  id: string;
  title: string;
  description: string;
  permalink: string;
  source: string;
  frontMatter: Record<string, unknown>;
};

export type LlmsTxtOptions = {
  /** The id of the docs instance that holds the API reference (listed, not twinned). */
  apiPluginId?: string;
};

/** Guides in sidebar order (intro, concepts, examples, guides); API pages by URL. */
function order(guides: DocInfo[], apiDocs: DocInfo[]): { guides: DocInfo[]; api: DocInfo[] } {
  const rank = (d: DocInfo) =>
    [
      d.id === "intro" ? 0 : d.id.startsWith("concepts/") ? 1 : d.id.startsWith("examples/") ? 2 : 3,
      Number(d.frontMatter.sidebar_position ?? 99),
    ] as const;
  guides.sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0] - rb[0] || ra[1] - rb[1] || a.id.localeCompare(b.id);
  });
  const api = [...apiDocs].sort((a, b) => a.permalink.localeCompare(b.permalink));
  return { guides, api };
}

/** True when `path` is `root` itself or lies below it. */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * The file an `@site/<sitePath>` import names, refused (an Error) when it
 * resolves outside `root` — by `..` segments, an absolute path, or a symbolic
 * link that leads out. A Markdown twin is published as it is, so only files
 * of the repository may be copied into it.
 */
export function resolveInsideRoot(root: string, sitePath: string): string {
  const realRoot = realpathSync(root);
  const file = resolve(realRoot, sitePath);
  const refuse = () =>
    new Error(`llms-txt: refusing to inline "@site/${sitePath}": it resolves outside the repository (${realRoot})`);
  if (!isInside(realRoot, file)) throw refuse();
  if (existsSync(file) && !isInside(realRoot, realpathSync(file))) throw refuse();
  return file;
}

/** Turns an `.mdx` guide into plain Markdown (see the file comment). */
export function mdxToMarkdown(
  mdx: string,
  doc: Pick<DocInfo, "title" | "description">,
  siteDir: string,
  siteUrl: string,
  /** The source's path from the site folder (`docs/intro.mdx`), for relative links. */
  sourcePath = "docs/index.mdx"
): string {
  const lines = mdx.replace(/\r\n/g, "\n").split("\n");
  // Front matter.
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) lines.splice(0, end + 1);
  }
  const raw = new Map<string, string>();
  const out: string[] = [];
  let fence: string | undefined; // the fence marker while inside a code block
  let indent = 0; // indentation removed inside a <TabItem>
  let codeBlock: { language: string; title?: string; body: string[] } | undefined;
  let hasTitle = false;

  for (const original of lines) {
    const line = indent && original.startsWith(" ".repeat(indent)) ? original.slice(indent) : original;
    const trimmed = line.trim();
    if (fence) {
      out.push(line);
      if (trimmed.startsWith(fence) && trimmed.replace(/[`~]/g, "") === "") fence = undefined;
      continue;
    }
    const opening = /^(`{3,}|~{3,})/.exec(trimmed);
    if (opening) {
      fence = opening[1];
      out.push(line);
      continue;
    }
    if (codeBlock) {
      if (trimmed === "</CodeBlock>") {
        const body = codeBlock.body.join("\n").trim();
        const text = /^\{(\w+)\}$/.test(body) ? (raw.get(body.slice(1, -1)) ?? body) : body;
        const ticks = text.includes("```") ? "````" : "```";
        out.push(`${ticks}${codeBlock.language}${codeBlock.title ? ` title="${codeBlock.title}"` : ""}`);
        out.push(text.replace(/\n$/, ""));
        out.push(ticks);
        codeBlock = undefined;
      } else codeBlock.body.push(line);
      continue;
    }
    // MDX module lines: remember raw-loader imports, drop the rest.
    const rawImport = /^import\s+(\w+)\s+from\s+['"]!!raw-loader!@site\/([^'"]+)['"];?$/.exec(trimmed);
    if (rawImport) {
      const file = resolveInsideRoot(siteDir, rawImport[2]);
      if (existsSync(file)) raw.set(rawImport[1], readFileSync(file, "utf8"));
      continue;
    }
    if (/^import\s.+\sfrom\s+['"][^'"]+['"];?$/.test(trimmed) || /^export\s/.test(line)) continue;
    // Components.
    const block = /^<CodeBlock\b([^>]*)>$/.exec(trimmed);
    if (block) {
      const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(block[1])?.[1];
      codeBlock = { language: attr("language") ?? "", title: attr("title"), body: [] };
      continue;
    }
    if (/^<\/?Tabs\b[^>]*>$/.test(trimmed)) continue;
    const tab = /^<TabItem\b[^>]*?label="([^"]*)"[^>]*>$/.exec(trimmed);
    if (tab) {
      out.push(`**${tab[1]}:**`, "");
      indent = original.length - original.trimStart().length + 2;
      continue;
    }
    if (trimmed === "</TabItem>") {
      indent = 0;
      continue;
    }
    if (/^<LiveCalculator\b.*\/>$/.test(trimmed)) {
      out.push("*(An interactive calculator runs here on the web page.)*");
      continue;
    }
    if (/^# /.test(line)) hasTitle = true;
    // A heading's explicit id (`## Title \{#id\}`) is for the site's anchors only.
    out.push(/^#{1,6} /.test(line) ? line.replace(/\s*\\?\{#[\w-]+\\?\}\s*$/, "") : line);
  }

  const site = siteUrl.replace(/\/$/, "");
  const body = out
    .join("\n")
    // Site-relative links and images: absolute, so the file stands alone.
    .replace(/\]\((\/(?!\/)[^)\s]*)\)/g, (_, path: string) => `](${site}${path})`)
    // Links to other guides by file (`./concepts/x.mdx#y`): their page URL.
    .replace(
      /\]\((\.{1,2}\/[^)\s#]*?)\.mdx?(#[^)\s]*)?\)/g,
      (_, path: string, hash = "") =>
        `](${site}/${posix.normalize(posix.join(posix.dirname(sourcePath), path))}${hash})`
    )
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const head = [hasTitle ? undefined : `# ${doc.title}`, doc.description ? `> ${doc.description}` : undefined]
    .filter(Boolean)
    .join("\n\n");
  // Keep the page's own "# Title" first, the summary right after it.
  if (hasTitle && doc.description) {
    return `${body.replace(/^(# .*)$/m, `$1\n\n> ${doc.description}`)}\n`;
  }
  return `${head}\n\n${body}\n`;
}

/**
 * A one-line summary of a page without a front-matter `description` (some
 * generated API pages): its first paragraph of prose, first sentence.
 */
export function summarize(markdown: string): string {
  const text = markdown.replace(/^---\n[\s\S]*?\n---\n/, "").replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, "");
  for (const paragraph of text.split(/\n\s*\n/)) {
    const p = paragraph.trim();
    if (!p || /^(#|\||>|<|-|\*|Defined in|\d+\.)/.test(p)) continue;
    const plain = p
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/[`*_\\]/g, "")
      .replace(/\s+/g, " ");
    const sentence = /^.*?[.!?](?=\s|$)/.exec(plain)?.[0] ?? plain;
    return sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
  }
  return "";
}

export default function llmsTxtPlugin(context: LoadContext, options: unknown): Plugin {
  const apiPluginId = (options as LlmsTxtOptions | undefined)?.apiPluginId ?? "api";
  return {
    name: "act-llms-txt",
    async postBuild({ outDir, plugins, siteConfig }) {
      // The guides are the default docs instance; the API reference is its own.
      // The docs of the version served under /docs/, and of every version.
      const docsOf = (id: string) => {
        const plugin = plugins.find((p) => p.name === "docusaurus-plugin-content-docs" && p.options.id === id);
        const content = plugin?.content as { loadedVersions?: { isLast: boolean; docs: DocInfo[] }[] } | undefined;
        const versions = content?.loadedVersions ?? [];
        const served = versions.find((v) => v.isLast)?.docs ?? [];
        if (!served.length) throw new Error(`llms-txt: no docs found in the docs instance "${id}"`);
        return { served, all: versions.flatMap((v) => v.docs) };
      };
      const allGuides = docsOf("default");
      const { guides, api } = order(allGuides.served, docsOf(apiPluginId).served);
      const docs = [...guides, ...api];
      const origin = siteConfig.url.replace(/\/$/, "");
      const siteUrl = `${origin}${siteConfig.baseUrl}`; // ends with "/"
      const pageUrl = (permalink: string) => `${origin}${permalink}`;
      // Front-matter descriptions (Docusaurus otherwise makes one up from the
      // page's first line, e.g. "Defined in: …" on generated API pages).
      for (const doc of new Set([...docs, ...allGuides.all])) {
        const fromFrontMatter = typeof doc.frontMatter.description === "string" ? doc.frontMatter.description : "";
        const file = resolve(context.siteDir, doc.source.replace(/^@site\//, ""));
        doc.description = fromFrontMatter || (existsSync(file) ? summarize(readFileSync(file, "utf8")) : "");
      }

      // By permalink: each version has its own intro, concepts, …
      const twins = new Map<string, string>();
      for (const doc of allGuides.all) {
        const file = resolve(context.siteDir, doc.source.replace(/^@site\//, ""));
        const markdown = mdxToMarkdown(
          readFileSync(file, "utf8"),
          doc,
          context.siteDir,
          `${origin}${siteConfig.baseUrl.replace(/\/$/, "")}`,
          doc.source.replace(/^@site\//, "")
        );
        twins.set(doc.permalink, markdown);
        // /act-root/docs/intro → build/docs/intro.md (the page is docs/intro/index.html).
        const target = join(outDir, `${doc.permalink.slice(siteConfig.baseUrl.length).replace(/\/$/, "/index")}.md`);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, markdown);
      }

      const entry = (doc: DocInfo, url: string) =>
        `- [${doc.title}](${url})${doc.description ? `: ${doc.description.replace(/\s+/g, " ").trim()}` : ""}`;
      const index = [
        `# ${siteConfig.title}`,
        "",
        `> ${siteConfig.tagline}. Act is a TypeScript library for event sourcing: typed states, actions, events, reactions and stores (in-memory and Postgres).`,
        "",
        `Each guide below is also available as Markdown (the page URL with \`.md\`); ${siteUrl}llms-full.txt holds all of them and the API reference in one file.`,
        "",
        "## Guides",
        "",
        ...guides.map((doc) => entry(doc, `${pageUrl(doc.permalink)}.md`)),
        "",
        "## API reference",
        "",
        ...api.map((doc) => entry(doc, pageUrl(doc.permalink))),
        "",
      ].join("\n");
      writeFileSync(join(outDir, "llms.txt"), index);

      const apiMarkdown = api.map((doc) => {
        const file = resolve(context.siteDir, doc.source.replace(/^@site\//, ""));
        const text = existsSync(file)
          ? readFileSync(file, "utf8")
              .replace(/^---\n[\s\S]*?\n---\n/, "")
              .trim()
          : "";
        return `<!-- ${pageUrl(doc.permalink)} -->\n\n${text}\n`;
      });
      const full = [
        `# ${siteConfig.title} — ${siteConfig.tagline}`,
        "",
        `> The complete documentation of Act as Markdown: the guides, then the API reference. Source: ${siteUrl}`,
        "",
        ...guides.map((doc) => `<!-- ${pageUrl(doc.permalink)} -->\n\n${twins.get(doc.permalink)}`),
        ...apiMarkdown,
      ].join("\n");
      writeFileSync(join(outDir, "llms-full.txt"), full);

      // Crawlers read robots.txt at the host's root; one under the base path
      // serves hosts where the site is the root, and names the sitemap.
      writeFileSync(join(outDir, "robots.txt"), `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}sitemap.xml\n`);
    },
  };
}
