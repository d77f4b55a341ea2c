// Self-test of scripts/site-links.mjs on a small fixture build: links to
// existing pages and anchors pass; a link to a missing anchor or a missing
// page fails, naming the page it is on; guides' links that name an API member
// without the anchor the page has for it are found.
import { afterAll as after, test } from "vitest";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brokenLinks, parseHtml, unanchoredMemberLinks } from "./site-links.mjs";

const BASE = "/act-root/";
const dirs = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → text) into a fresh build folder. */
function build(files) {
  const dir = mkdtempSync(join(tmpdir(), "site-links-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

// A class page the way Docusaurus writes it: minified, attributes unquoted
// where they can be, both `Act.html` and `Act/index.html`.
const act =
  '<!doctype html><html><body><h1>Act</h1><h3 class=anchor id=do>do()</h3><h3 id="query_array">queryArray()</h3><a name=legacy></a></body></html>';
const site = (guide) => ({
  "index.html": `<a href=/act-root/docs/guide>Guide</a>`,
  "docs/guide.html": guide,
  "docs/guide/index.html": guide,
  "docs/api/act/src/classes/Act.html": act,
  "docs/api/act/src/classes/Act/index.html": act,
  "llms.txt": "text",
});

test("links to existing pages and anchors pass, in any attribute style", () => {
  const guide = [
    '<h2 id=top-part>Top</h2><a href="#top-part">here</a>',
    "<a href=/act-root/docs/api/act/src/classes/Act#do>do</a>",
    "<a href='/act-root/docs/api/act/src/classes/Act/#query_array'>query_array</a>",
    '<a href="/act-root/docs/api/act/src/classes/Act#legacy">old name</a>',
    "<a href=/act-root/llms.txt>llms.txt</a> <a href=https://example.com/x#nowhere>elsewhere</a> <a href=#>menu</a>",
    '<script>document.write("<a href=/act-root/nothing#x>")</script><!-- <a href="#gone"> -->',
  ].join("\n");
  assert.deepEqual(brokenLinks(build(site(guide)), BASE), []);
});

test("a link to a missing anchor or a missing page fails, naming the page it is on", () => {
  const guide = [
    "<a href=/act-root/docs/api/act/src/classes/Act#dispatch>dispatch</a>",
    '<a href="#nowhere">same page</a>',
    "<a href=/act-root/docs/api/act/src/classes/Missing>missing</a>",
    "<a href=/elsewhere/page>outside</a>",
  ].join("\n");
  assert.deepEqual(brokenLinks(build(site(guide)), BASE), [
    '/act-root/docs/guide → #nowhere: no element with id "nowhere" on /act-root/docs/guide',
    '/act-root/docs/guide → /act-root/docs/api/act/src/classes/Act#dispatch: no element with id "dispatch" on /act-root/docs/api/act/src/classes/Act',
    "/act-root/docs/guide → /act-root/docs/api/act/src/classes/Missing: no such page",
    "/act-root/docs/guide → /elsewhere/page: outside the base path /act-root/",
    '/act-root/docs/guide/ → #nowhere: no element with id "nowhere" on /act-root/docs/guide/',
    '/act-root/docs/guide/ → /act-root/docs/api/act/src/classes/Act#dispatch: no element with id "dispatch" on /act-root/docs/api/act/src/classes/Act',
    "/act-root/docs/guide/ → /act-root/docs/api/act/src/classes/Missing: no such page",
    "/act-root/docs/guide/ → /elsewhere/page: outside the base path /act-root/",
  ]);
});

test("ids and hrefs are read with character references decoded", () => {
  const { ids, hrefs } = parseHtml('<h2 id="a&amp;b">x</h2><a href="/act-root/x?y=1&amp;z=2#a&#38;b">x</a>');
  assert.deepEqual([...ids], ["a&b"]);
  assert.deepEqual(hrefs, ["/act-root/x?y=1&z=2#a&b"]);
});

test("a guide link that names an API member but lands at the top of its page is found, when the page has the member's anchor", () => {
  const anchors = { "/docs/api/act/src/classes/Act": new Set(["do", "load", "correlate", "property-registry"]) };
  const mdx = [
    "[`Act`](/docs/api/act/src/classes/Act) and [`state(name, schema)`](/docs/api/act/src/functions/state)",
    "name their pages; [`app.do`](/docs/api/act/src/classes/Act#do) has its anchor.",
    "But [`app.load(State, stream)`](/docs/api/act/src/classes/Act) and",
    "[`correlate`](/docs/api/act/src/classes/Act) do not, nor [`app.registry`](/docs/api/act/src/classes/Act).",
    "[`idempotencyKey`](/docs/api/act/src/variables/TargetSchema): that page has no anchor for it.",
  ].join("\n");
  assert.deepEqual(
    unanchoredMemberLinks(mdx, (url) => anchors[url]),
    [
      "3: `app.load(State, stream)` → /docs/api/act/src/classes/Act (use #load)",
      "4: `correlate` → /docs/api/act/src/classes/Act (use #correlate)",
      "4: `app.registry` → /docs/api/act/src/classes/Act (use #property-registry)",
    ]
  );
});
