// The internal links of a built site (the `build/` folder): every link to a
// page of the site must reach a file, and every `#anchor` must name an
// element on the page it points to. Docusaurus only warns about broken
// anchors (and only for links it rendered itself); scripts/site.test.mjs
// uses this to fail instead, over every HTML file of the build.
//
// The HTML is Docusaurus' minified output, read without a browser: comments,
// scripts and styles are skipped, attribute values may be quoted or not, and
// character references in them are decoded. Element ids (`id`, and `name` on
// an `<a>`) are the anchors; the links are the `href`s of `<a>` elements.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Any origin will do: links are resolved against it and only same-origin ones are checked. */
const ORIGIN = "https://site.invalid";

const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+(?:[^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const NAMED = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** An attribute value with its character references decoded. */
function decode(value) {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] !== "#") return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return String.fromCodePoint(code);
  });
}

/** The anchors (element ids) and link targets (`<a href>`) of one HTML document. */
export function parseHtml(html) {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<script\b[\s\S]*?<\/script\s*>/gi, "")
    .replace(/<style\b[\s\S]*?<\/style\s*>/gi, "");
  const ids = new Set();
  const hrefs = [];
  for (const [, name, attributes = ""] of text.matchAll(TAG)) {
    const tag = name.toLowerCase();
    for (const [, key, ...values] of attributes.matchAll(ATTRIBUTE)) {
      const value = decode(values.find((v) => v !== undefined) ?? "");
      const attribute = key.toLowerCase();
      if (attribute === "id" || (attribute === "name" && tag === "a")) ids.add(value);
      if (attribute === "href" && tag === "a") hrefs.push(value);
    }
  }
  return { ids, hrefs };
}

/** Every .html file under `dir`. */
export function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(path);
    return entry.name.endsWith(".html") ? [path] : [];
  });
}

/**
 * The problems of the internal links of the site built in `buildDir`,
 * served under `base` (e.g. "/act-root/"), as `from → link: problem` lines.
 * An empty list means every internal link and anchor resolves.
 */
export function brokenLinks(buildDir, base) {
  const parsed = new Map();
  const page = (file) => {
    if (!parsed.has(file)) parsed.set(file, parseHtml(readFileSync(file, "utf8")));
    return parsed.get(file);
  };
  /** The file the server sends for a path under the base (clean URLs: `/x` is `x.html` or `x/index.html`). */
  const fileFor = (path) => {
    const inside = join(buildDir, ...path.slice(base.length).split("/"));
    const candidates = path.endsWith("/")
      ? [join(inside, "index.html")]
      : [inside, `${inside}.html`, join(inside, "index.html")];
    return candidates.find((file) => existsSync(file) && statSync(file).isFile());
  };

  const problems = new Set();
  for (const file of htmlFiles(buildDir)) {
    // The URL a reader sees the page at: `a/index.html` is `/base/a/`, `a.html` is `/base/a`.
    const route = relative(buildDir, file)
      .split(sep)
      .join("/")
      .replace(/(^|\/)index\.html$/, "$1")
      .replace(/\.html$/, "");
    const from = `${base}${route}`;
    for (const href of page(file).hrefs) {
      if (href === "" || href === "#") continue;
      let url;
      try {
        url = new URL(href, `${ORIGIN}${from}`);
      } catch {
        problems.add(`${from} → ${href}: not a valid URL`);
        continue;
      }
      if (url.origin !== ORIGIN) continue;
      const path = decodeURI(url.pathname);
      if (!path.startsWith(base)) {
        problems.add(`${from} → ${href}: outside the base path ${base}`);
        continue;
      }
      const target = fileFor(path);
      if (!target) {
        problems.add(`${from} → ${href}: no such page`);
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor && target.endsWith(".html") && !page(target).ids.has(anchor))
        problems.add(`${from} → ${href}: no element with id "${anchor}" on ${path}`);
    }
  }
  return [...problems].sort();
}

/**
 * Links in a hand-written page that name a member of an API page but land at
 * the top of it although the page has an anchor for that member:
 * `` [`app.load(...)`](/docs/api/act/src/classes/Act) `` should be
 * `…/classes/Act#load`. A link names a member when its code text, without
 * arguments, is not the page's own name (`Act`, `state()`, `state(name,
 * schema)` name their page); the member is the last dotted part (`load` of
 * `app.load`). `anchorsOf(url)` gives the element ids of the page a link
 * points to (from the built HTML); the member's anchor is its name in lower
 * case, or `property-<name>` for a property in a table. Returns
 * `line: text → url (use #anchor)` lines.
 */
export function unanchoredMemberLinks(mdx, anchorsOf) {
  const found = [];
  const LINK = /\[`([^`\]]+)`\]\((\/docs\/api\/[^/)]+\/src\/[a-z-]+\/([^/)#\s]+))\)/g;
  for (const match of mdx.matchAll(LINK)) {
    const [, text, url, page] = match;
    const named = text.replace(/\(.*$/s, "").trim();
    if (named === page || named === `new ${page}`) continue;
    const member = named.split(".").pop().toLowerCase();
    const ids = anchorsOf(url) ?? new Set();
    const anchor = [member, `property-${member}`].find((id) => ids.has(id));
    if (!anchor) continue;
    const line = mdx.slice(0, match.index).split("\n").length;
    found.push(`${line}: \`${text}\` → ${url} (use #${anchor})`);
  }
  return found;
}
