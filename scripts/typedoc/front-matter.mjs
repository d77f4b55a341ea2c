// TypeDoc plugin loaded by docusaurus-plugin-typedoc (see docusaurus.config.ts).
//
// typedoc-plugin-markdown escapes Markdown characters in headings
// ("# Function: build\_tracer()"). The page renders fine, but Docusaurus takes
// the <title> and search/social metadata from the raw heading, so readers
// saw "build\_tracer" in tabs and search results. This gives every generated
// page front matter — the unescaped title and the symbol's summary as the
// description — and calls the module pages by their package names
// ("@act-root/act", not the folder "act/src" the routes keep). The API index
// lists the packages in the order of the entry points (the core first, then
// the Postgres store), not alphabetically by folder, which put act-pg first.
// A symbol's stability tag (`@stable`, `@experimental`) becomes the page's
// `stability`, which the site shows as a badge (src/theme/DocItem/Content).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ReflectionKind } from "typedoc";

const MARKDOWN_ESCAPE = /\\([\\`*_{}[\]()#+\-.!<>|~])/g;

/**
 * "act/src" → the "name" of packages/act/package.json; a module below `src`
 * is a subpath entry point: "act/src/testing" → "@act-root/act/testing".
 */
function packageName(module) {
  try {
    const [dir, , ...subpath] = module.split("/");
    const name = JSON.parse(readFileSync(join(process.cwd(), "packages", dir, "package.json"), "utf8")).name;
    return [name, ...subpath].join("/");
  } catch {
    return module;
  }
}

/** Plain text of a summary: inline tags ({@link x}) become their text. */
function plain(parts) {
  return parts
    .map((part) => part.text)
    .join("")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/[`*_]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Reorders the rows of the index's module table ("| [@act-root/act](act/src/…")
 * to follow the entry points ("packages/act/src/index.ts", …).
 */
export function inEntryPointOrder(contents, entryPoints) {
  // "/…/packages/act/src/index.ts" (TypeDoc resolves them) → "act/src"
  const folders = entryPoints.map((entry) => entry.replace(/^.*packages\//, "").replace(/\/index\.ts$/, ""));
  const rank = (row) => {
    const index = folders.findIndex((folder) => row.includes(`](${folder}/`));
    return index < 0 ? folders.length : index;
  };
  return contents.replace(/(?:^\| \[[^\n]*\n?)+/m, (rows) => {
    const lines = rows.split("\n").filter(Boolean);
    const sorted = [...lines].sort((a, b) => rank(a) - rank(b));
    return sorted.join("\n") + (rows.endsWith("\n") ? "\n" : "");
  });
}

/**
 * The stability tags of the TSDoc, by the front-matter value they give.
 * @type {Record<string, "stable" | "experimental">}
 */
const STABILITY_TAGS = { "@experimental": "experimental", "@stable": "stable" };

/**
 * "stable" or "experimental" when the symbol's TSDoc carries the tag — on the
 * declaration, or for a function on its first signature, where TypeDoc moves
 * a function's comment — else undefined.
 *
 * @param {any} model - the reflection a page documents
 * @returns {"stable" | "experimental" | undefined}
 */
export function stabilityOf(model) {
  const comments = [model?.comment, ...(model?.signatures ?? []).map((signature) => signature.comment)];
  for (const comment of comments)
    for (const [tag, stability] of Object.entries(STABILITY_TAGS))
      if (comment?.modifierTags?.has(tag)) return stability;
  return undefined;
}

/**
 * The page without TypeDoc's line for the symbol's own stability tag
 * (**`Experimental`** under "Defined in"), which the badge replaces; the
 * members' tags, further down, stay.
 *
 * @param {string} contents - the page's Markdown
 * @param {"stable" | "experimental"} stability - the symbol's
 */
export function withoutSymbolFlag(contents, stability) {
  const label = stability === "stable" ? "Stable" : "Experimental";
  return contents.replace(new RegExp(`^\\*\\*\`${label}\`\\*\\*\n(\n|$)`, "m"), "");
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.renderer.on("endPage", (page) => {
    if (!page.contents) return;
    // A page's model is a reflection (its type names only the router's view of it).
    const model = /** @type {any} */ (page.model);
    if (model?.kindOf?.(ReflectionKind.Module)) {
      const name = packageName(model.name);
      page.contents = page.contents.replace(/^# .+$/m, `# ${name}`);
    }
    if (model?.kindOf?.(ReflectionKind.Project)) {
      for (const child of model.children ?? []) {
        page.contents = page.contents.replaceAll(`[${child.name}](`, `[${packageName(child.name)}](`);
      }
      page.contents = inEntryPointOrder(page.contents, app.options.getValue("entryPoints"));
    }
    const heading = /^# (.+)$/m.exec(page.contents);
    const fields = {};
    if (heading) fields.title = heading[1].replace(MARKDOWN_ESCAPE, "$1");
    const summary = model?.comment?.summary;
    if (summary?.length) {
      const text = plain(summary);
      if (text) fields.description = text.length > 160 ? `${text.slice(0, 157)}...` : text;
    }
    const stability = stabilityOf(model);
    if (stability) {
      fields.stability = stability;
      page.contents = withoutSymbolFlag(page.contents, stability);
    }
    const yaml = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
    if (yaml.length) page.contents = `---\n${yaml.join("\n")}\n---\n\n${page.contents}`;
  });
}
