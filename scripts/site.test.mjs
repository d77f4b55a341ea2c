// Checks the built site (build/, from `npm run build` or scripts/site-build.mjs)
// against the routes the site promises (listed below, with the API pages of
// promised-api-pages.mjs), and
// keeps it free of broken links and anchors (the config keeps them warnings
// so a generated page cannot block a release): the build log must have no
// such warning, every internal link and anchor in the built HTML must
// resolve (scripts/site-links.mjs), and a guide's link to an API member must
// go to the member's anchor, not the top of the page.
import { test } from "vitest";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { undescribedParameters, undescribedParametersIn } from "./typedoc/parameter-tables.mjs";
import { brokenLinks, htmlFiles, parseHtml, unanchoredMemberLinks } from "./site-links.mjs";
import { repository } from "./repository.mjs";
import { pageScripts, readBuild } from "./page-bundles.mjs";
import { CORE_API_PAGES } from "./promised-api-pages.mjs";
import { CAPABILITY_PAGES } from "./limitations.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const build = join(root, "build");
const BASE = "/act-root/";

// The guide and index routes (the two act-pg routes: see below).
const pages = [
  "/act-root/docs/intro",
  "/act-root/docs/concepts/configuration",
  "/act-root/docs/concepts/event-sourcing",
  "/act-root/docs/concepts/state-management",
  "/act-root/docs/examples/calculator",
  "/act-root/docs/examples/wolfdesk",
  "/act-root/docs/api/",
  "/act-root/docs/api/act/src/",
];

// The core package's API pages, each under /act-root/docs/api/act/src/<kind>/.
const core = CORE_API_PAGES;
for (const [kind, names] of Object.entries(core))
  for (const name of names) pages.push(`/act-root/docs/api/act/src/${kind}/${name}`);

// The test kit, `@act-root/act/testing`: its module comes out under act/src.
const testing = {
  classes: ["SettleError"],
  functions: ["settle", "storeConformance"],
  "type-aliases": ["SettleOptions", "Settled", "SettleReason", "TestApi"],
};
pages.push("/act-root/docs/guides/testing", "/act-root/docs/api/act/src/testing/");
for (const [kind, names] of Object.entries(testing))
  for (const name of names) pages.push(`/act-root/docs/api/act/src/testing/${kind}/${name}`);

// The migration guides, which the FAQ and the choosing guide link to.
pages.push("/act-root/docs/guides/migrating-from-rotorsoft-act", "/act-root/docs/guides/migrating-from-emmett");

// The Postgres store package is documented once its entry point exists
// (docusaurus.config.ts only passes existing entry points to TypeDoc).
const hasPostgres = existsSync(join(root, "packages/act-pg/src/index.ts"));
if (hasPostgres) pages.push("/act-root/docs/api/act-pg/src/", "/act-root/docs/api/act-pg/src/classes/PostgresStore");

// The OpenTelemetry package and its guide, likewise once its entry point exists.
if (existsSync(join(root, "packages/act-otel/src/index.ts")))
  pages.push(
    "/act-root/docs/guides/observability",
    "/act-root/docs/api/act-otel/src/",
    "/act-root/docs/api/act-otel/src/functions/instrument",
    "/act-root/docs/api/act/src/functions/observe",
    "/act-root/docs/api/act/src/type-aliases/Observer"
  );

// The HTTP package and its guide.
if (existsSync(join(root, "packages/act-http/src/index.ts")))
  pages.push(
    "/act-root/docs/guides/http",
    "/act-root/docs/api/act-http/src/",
    "/act-root/docs/api/act-http/src/functions/http"
  );

/** The HTML file Docusaurus writes for a route (trailingSlash unset). */
function fileFor(route) {
  const path = route.slice(BASE.length);
  const candidates = route.endsWith("/")
    ? [join(build, path, "index.html")]
    : [join(build, path, "index.html"), join(build, `${path}.html`)];
  return candidates.find((file) => existsSync(file));
}

test("the build output exists", () => {
  assert.ok(existsSync(join(build, "index.html")), "build/index.html is missing: run `npm run build` first");
  assert.ok(existsSync(join(build, "404.html")), "build/404.html (the not-found page) is missing");
});

test("every promised route is a built page", () => {
  const missing = pages.filter((route) => !fileFor(route));
  assert.deepEqual(missing, [], `routes without a page:\n${missing.join("\n")}`);
});

test("API pages are about the symbol their route names", () => {
  const wrong = [];
  for (const route of pages.filter((r) => /\/api\/act(-pg)?\/src\/(testing\/)?[a-z-]+\/[^/]+$/.test(r))) {
    const name = route.split("/").pop();
    const html = readFileSync(fileFor(route), "utf8");
    const title = /<title[^>]*>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
    if (!title.includes(name)) wrong.push(`${route}: title "${title}"`);
  }
  assert.deepEqual(wrong, []);
});

test("every capability page is built with its Limitations section, as an anchor other pages can link", () => {
  const missing = CAPABILITY_PAGES.map((page) => `${BASE}docs/${page}`).filter((route) => {
    const file = fileFor(route);
    return !file || !/<h2\b[^>]*\bid="?limitations"?[\s>]/.test(readFileSync(file, "utf8"));
  });
  assert.deepEqual(missing, [], "pages without <h2 id=limitations>");
});

test("the landing page links to the introduction and the API index", () => {
  const html = readFileSync(join(build, "index.html"), "utf8");
  // The HTML is minified: attribute quotes are optional.
  assert.match(html, /href="?\/act-root\/docs\/intro[">\s]/);
  assert.match(html, /href="?\/act-root\/docs\/api\/[">\s]/);
  assert.match(html, /Fluent Event Sourcing for TypeScript/);
});

test("the build printed no broken-link or broken-anchor warning", () => {
  const logFile = join(root, ".cache", "site-build.log");
  assert.ok(existsSync(logFile), "no build log: build with `node scripts/site-build.mjs` (npm run test:site does)");
  const log = readFileSync(logFile, "utf8");
  const problems = log
    .split("\n")
    .filter((line) => /broken (links|anchors)|couldn't be resolved|could not be resolved/i.test(line));
  assert.deepEqual(problems, [], `the build reported broken links/anchors:\n${log}`);
});

test("every parameter on a generated API page has a description", () => {
  const api = join(root, "docs-api");
  assert.ok(existsSync(api), "docs-api is missing: the build generates it");
  const missing = undescribedParametersIn(api);
  assert.deepEqual(
    missing,
    [],
    `parameters without a description (add an @param to the source's TSDoc):\n${missing.join("\n")}`
  );
});

test("the parameter check finds a dash cell, a missing Description column and nested options", () => {
  const page = [
    "# Class: Shop",
    "### buy()",
    "| Parameter | Type | Description |",
    "| ------ | ------ | ------ |",
    "| `item` | `string` | what to buy |",
    "| `count?` | `number` | - |",
    "### sell()",
    "| Parameter | Type |",
    "| ------ | ------ |",
    "| `item` | `string` |",
    "### pay()",
    "| Parameter | Type | Default value | Description |",
    "| ------ | ------ | ------ | ------ |",
    "| `options` | \\{ `cash`: `boolean` \\| `null` \\} | `undefined` | how to pay |",
    "| `options.cash` | `boolean` | `false` |  |",
    "",
    "Text after the table | with a pipe.",
  ].join("\n");
  assert.deepEqual(undescribedParameters(page), [
    { member: "buy()", parameter: "count?" },
    { member: "sell()", parameter: "item" },
    { member: "pay()", parameter: "options.cash" },
  ]);
});

test("every internal link of the built site reaches a page, and every #anchor an element on it", () => {
  assert.ok(existsSync(join(build, "index.html")), "build/index.html is missing: run `npm run build` first");
  const problems = brokenLinks(build, BASE);
  assert.deepEqual(problems, [], `broken internal links or anchors:\n${problems.join("\n")}`);
});

test("no page links the search page (prefetching it would fetch the whole index, 1.6 MB)", () => {
  assert.ok(existsSync(join(build, "index.html")), "build/index.html is missing: run `npm run build` first");
  const linking = htmlFiles(build)
    .map((file) => relative(build, file))
    .filter((file) => !/^search(\/index)?\.html$/.test(file))
    .filter((file) =>
      parseHtml(readFileSync(join(build, file), "utf8")).hrefs.some((href) => /^\/act-root\/search\b/.test(href))
    );
  assert.deepEqual(linking, []);
});

test("guides link API members at their anchor (`…/classes/Act#load`), not at the top of the class page", () => {
  const docs = join(root, "docs");
  const guides = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return relative(docs, path) === "api" ? [] : guides(path);
      return /\.mdx?$/.test(entry.name) ? [path] : [];
    });
  // The anchors of an API page, from the built HTML (a missing page is the link crawl's to report).
  const anchorsOf = (url) => {
    const file = fileFor(`/act-root${url}`);
    return file ? parseHtml(readFileSync(file, "utf8")).ids : undefined;
  };
  const found = guides(docs).flatMap((file) =>
    unanchoredMemberLinks(readFileSync(file, "utf8"), anchorsOf).map((link) => `${relative(root, file)}:${link}`)
  );
  assert.deepEqual(found, [], `link these to the member's anchor:\n${found.join("\n")}`);
});

// Diagrams are rendered to inline SVG at build time; no page loads Mermaid.
const diagramPages = {
  "/act-root/docs/concepts/event-sourcing": 3,
  "/act-root/docs/concepts/state-management": 2,
  "/act-root/docs/examples/calculator": 1,
  "/act-root/docs/examples/wolfdesk": 2,
};
const html = (route) => readFileSync(join(build, route.slice(BASE.length), "index.html"), "utf8");

test("every diagram is in the page's HTML as SVG, light and dark, with a title and a description", () => {
  for (const [route, count] of Object.entries(diagramPages)) {
    const page = html(route);
    for (const mode of ["light", "dark"]) {
      const copies = [
        ...page.matchAll(new RegExp(`<div class="?act-diagram__${mode}"?><svg ([^>]*)>(.*?)</svg>`, "gs")),
      ];
      assert.equal(copies.length, count, `${route}: ${count} ${mode} diagrams`);
      for (const [, attributes, body] of copies) {
        assert.match(attributes, /aria-labelledby="?[^" ]+/, `${route}: the ${mode} SVG names its title`);
        assert.match(
          body,
          /^<title id="?[^>]+>[^<]{3,}<\/title><desc id="?[^>]+>[^<]{10,}<\/desc>/,
          `${route}: title and description`
        );
      }
    }
  }
});

test("no page and no script chunk carries Mermaid's code", () => {
  const scripts = join(build, "assets", "js");
  const mermaid = /mermaidAPI|mermaid\.initialize/;
  const carrying = readdirSync(scripts).filter(
    (file) => file.endsWith(".js") && mermaid.test(readFileSync(join(scripts, file), "utf8"))
  );
  assert.deepEqual(carrying, [], "script chunks with Mermaid's code");
  for (const route of Object.keys(diagramPages))
    assert.doesNotMatch(html(route), /mermaid\.min\.js|class="?mermaid"?[ >]/, route);
});

test("pages start their code after the first paint: no <script src> in the HTML, the bundles listed for the loader", () => {
  for (const route of [
    "/act-root/docs/intro",
    "/act-root/docs/examples/calculator",
    "/act-root/docs/api/act/src/classes/Act",
  ]) {
    const page = html(route);
    assert.doesNotMatch(page, /<script[^>]+src=/, `${route}: a script tag blocks nothing, and none is in the HTML`);
    const bundles =
      /\["(\/act-root\/assets\/js\/runtime~main\.[^"]+\.js)","(\/act-root\/assets\/js\/main\.[^"]+\.js)"\]/.exec(page);
    assert.ok(bundles, `${route}: the loader lists the runtime and the main bundle`);
    for (const bundle of bundles.slice(1))
      assert.ok(existsSync(join(build, bundle.slice(BASE.length))), `${bundle} exists`);
  }
});

// The entry bundles run almost every function they hold at start-up; the
// comment asks the browser to compile them while they download rather than
// on the main thread when first called (src/plugins/compile-hints). It only
// works as the file's first line, and a minifier drops comments.
test("the runtime and main bundles begin with the compile hint; route chunks and stylesheets do not", () => {
  const js = join(build, "assets", "js");
  const files = readdirSync(js).filter((f) => f.endsWith(".js"));
  const entries = files.filter((f) => /^(runtime~main|main)\.[0-9a-f]+\.js$/.test(f));
  assert.equal(entries.length, 2, `one runtime and one main bundle: ${entries.join(", ")}`);
  for (const file of entries)
    assert.ok(
      readFileSync(join(js, file), "utf8").startsWith("//# allFunctionsCalledOnLoad\n"),
      `${file} starts with the compile hint`
    );
  const hinted = files.filter(
    (f) => !entries.includes(f) && readFileSync(join(js, f), "utf8").startsWith("//# allFunctionsCalledOnLoad")
  );
  assert.deepEqual(hinted, [], "route chunks carry no compile hint");
  // A `//` line at the top of a stylesheet would swallow its first rule.
  const css = join(build, "assets", "css");
  for (const file of readdirSync(css))
    assert.ok(!readFileSync(join(css, file), "utf8").includes("allFunctionsCalledOnLoad"), `${file} has no hint`);
});

// The intro's JavaScript budget: what its first visit loads (the scripts its
// HTML names and the chunks its route needs), decoded. Bytes, not timings:
// they are the same on every machine. `node scripts/bundle-report.mjs
// --page /act-root/docs/intro` shows what they are made of.
//
// The goal is 500 KB (the reference site's intro loads 562 KB). It is
// missed: the intro loads 552.0 KB, of which the main bundle is 456 KB.
// Most of the gap is the API reference's share of what Docusaurus puts in
// the main bundle for every route (route table, chunk names, chunk registry,
// the docs list of the global data), which no public option leaves out:
// every API page adds about 0.27 KB, every guide page about 0.6 KB (its
// route, its sidebar entry and its metadata are loaded on every page). The
// budget below stops anything else from growing it; it moves only with new
// pages. On 28 November 2026 about ten API pages (the errors and options of
// `app.settled`, idempotency and reaction names, the handler's context) and
// two concept pages (Guarantees, How it runs) took the intro to 558.6 KB,
// the main bundle to 461.1 KB. Later that day the API pages of a store per
// app (`BuildOptions`, `DrainInfo`) and of exact event data (`ExactEmitted`)
// took it to 560.2 KB, the main bundle to 462.5 KB. On 29 November the
// options of the app's calls (`DoOptions`, `LoadOptions`, `ProjectedOptions`,
// `CorrelationOptions`) and the module page of `@act-root/act/internal` took
// it to 563.1 KB, the main bundle to 465.2 KB. Later that day the module
// of `@act-root/act-http` (about 30 API pages) took it to 579.1 KB, the main
// bundle to 478.6 KB. Then the two migration guides (from `@rotorsoft/act`
// and from Emmett) in a sidebar category of their own, and the intro's link
// to them, took it to 581.8 KB, the main bundle to 479.6 KB. On 29 November
// the navbar's docs-version item (the theme's version dropdown and its
// wrapper, on every page) and the release notes page took it to 585.6 KB,
// the main bundle to 481.9 KB. Then timers (about 20 API pages: the timer
// types of the store port, `Clock`, `testClock`, the internal input checks)
// and the Workflows and timers guide took it to 596.8 KB, the main bundle to
// 491.5 KB. Then copying a store (about 12 API pages: `copyStore`,
// `logDigest`, `CopyError`, the `StoreTransfer` port and its record types),
// the Moving and backing up a store guide, and the API pages main had
// gained meanwhile (`LogRead`, `Correlated`) took it to 605.0 KB, the main
// bundle to 498.5 KB. Then personal data, timers from actions, tenants and
// closing and archiving (about 60 API pages and four guides between them)
// took it to 636.2 KB, the main bundle to 525.3 KB: each route adds its
// entry to the route table every first visit loads. Then the records a copy
// carries beside the log (`ArchivedRecord`, `SubjectRecord`), tenants in
// shared tables (`postgresSharedTenants` and its config) and the `Commit`
// type of `Store.commit` — five API pages — took it to about 638.5 KB, and
// `PollRequest` and `KeyWrite` (the objects `Store.poll` and
// `SubjectKeyStore.current` now take) to 640.1 KB.
const INTRO_JS_BUDGET = 641 * 1024;

test("the intro's first visit loads no more JavaScript than its budget (decoded)", () => {
  const scripts = pageScripts(readBuild(build, BASE), "/act-root/docs/intro");
  const total = scripts.reduce((n, s) => n + s.bytes, 0);
  const list = scripts.map((s) => `${(s.bytes / 1024).toFixed(1)} KB ${s.file}`).join(", ");
  assert.ok(
    total <= INTRO_JS_BUDGET,
    `the intro loads ${(total / 1024).toFixed(1)} KB, over its ${INTRO_JS_BUDGET / 1024} KB budget: ${list}`
  );
});

// The calculator page shows four source files in full; highlighted in the
// HTML (an element per token) they made it 450 KB. Long listings come plain
// and are highlighted in the browser (src/theme/CodeBlock/OnDemand.tsx).
test("the calculator page's HTML is at most 150 KB, its listings included", () => {
  const page = html("/act-root/docs/examples/calculator");
  const bytes = Buffer.byteLength(page);
  assert.ok(bytes <= 150 * 1024, `${(bytes / 1024).toFixed(1)} KB`);
  for (const file of ["calculator.ts", "index.ts", "cli.ts"])
    assert.match(page, new RegExp(`packages/calculator/src/${file}`));
});

test("the per-page script count finds the route's chunks, not only the bundles the HTML names", () => {
  const scripts = pageScripts(readBuild(build, BASE), "/act-root/docs/intro");
  const fromRoute = scripts.filter((s) => !s.why.includes("page HTML"));
  assert.ok(fromRoute.length >= 3, `route chunks found: ${fromRoute.map((s) => s.file).join(", ")}`);
  assert.ok(
    fromRoute.some((s) => s.why.some((why) => why.startsWith("/act-root/docs/intro "))),
    "the intro's own content chunk is counted"
  );
});

test("an API page's first visit counts its own content; a guide's loads nothing of the API reference", () => {
  const built = readBuild(build, BASE);
  const api = pageScripts(built, "/act-root/docs/api/act/src/classes/Act");
  assert.ok(api.some((s) => s.why.some((why) => why.startsWith("/act-root/docs/api/act/src/classes/Act "))));
  // The API reference is a docs instance of its own: its sidebar and page
  // list are chunks of its routes, not of the guides'.
  const intro = pageScripts(built, "/act-root/docs/intro");
  const fromApi = intro.filter((s) => s.why.some((why) => why.startsWith("/act-root/docs/api")));
  assert.deepEqual(fromApi, [], "the intro loads chunks of the API routes");
  const apiOnly = api.filter((s) => !intro.some((i) => i.file === s.file));
  assert.ok(apiOnly.length >= 2, `the API page's own chunks: ${apiOnly.map((s) => s.file).join(", ")}`);
});

test("the API index says where to start and lists the core package before the Postgres one", () => {
  const html = readFileSync(fileFor("/act-root/docs/api/"), "utf8");
  assert.match(html, /Start here/);
  for (const route of ["functions/state", "functions/act", "classes/Act", "variables/store"])
    assert.match(html, new RegExp(`href="?/act-root/docs/api/act/src/${route}[">\\s]`), route);
  const core = html.indexOf(">@act-root/act<");
  const postgres = html.indexOf(">@act-root/act-pg<");
  assert.ok(core > 0 && (!hasPostgres || core < postgres), "@act-root/act must be listed before @act-root/act-pg");
});

test("the API pages of the main concepts link the guide that explains them", () => {
  const concepts = ["functions/state", "functions/act", "classes/Act", "interfaces/Store", "type-aliases/Query"]
    .map((route) => `/act-root/docs/api/act/src/${route}`)
    .concat(hasPostgres ? ["/act-root/docs/api/act-pg/src/classes/PostgresStore"] : []);
  const without = concepts.filter(
    (route) => !/href="?\/act-root\/docs\/concepts\//.test(readFileSync(fileFor(route), "utf8"))
  );
  assert.deepEqual(without, []);
});

test("the Act page reads as one class: no base class a reader cannot import, its operations listed as its own", () => {
  const page = readFileSync(fileFor("/act-root/docs/api/act/src/classes/Act"), "utf8");
  // Act is written in two halves; the other half (ActOperations) is not exported.
  assert.doesNotMatch(page, /ActOperations/);
  assert.doesNotMatch(page, /Inherited from/);
  assert.doesNotMatch(page, />Extends</);
  // The methods of that half are still on the page, each at its anchor, with its description.
  for (const method of ["drain", "start", "stats", "forget", "on"])
    assert.match(page, new RegExp(`id="?${method}"?[\\s>]`), `Act#${method}`);
  // A base class from elsewhere keeps its line: an error class still extends Error.
  const error = readFileSync(fileFor("/act-root/docs/api/act/src/classes/ConcurrencyError"), "utf8");
  assert.match(error, />Extends</);
});

test("the repository links point at the repository the site is built from", () => {
  // The same rule as docusaurus.config.ts: GITHUB_REPOSITORY, or the documented default.
  const { url } = repository();
  const escaped = url.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const links = {
    "the navbar and footer link on /act-root/": [join(build, "index.html"), `href="?${escaped}"?[\\s>]`],
    '"Defined in" on the Store page': [
      fileFor("/act-root/docs/api/act/src/interfaces/Store"),
      `href="?${escaped}/blob/main/packages/act/src/types/ports\\.ts#L\\d+`,
    ],
    '"Edit this page" on the introduction': [
      fileFor("/act-root/docs/intro"),
      `href="?${escaped}/edit/main/docs/intro\\.mdx`,
    ],
  };
  const wrong = Object.entries(links)
    .filter(([, [file, pattern]]) => !new RegExp(pattern).test(readFileSync(file, "utf8")))
    .map(([what]) => `${what} does not point at ${url}`);
  assert.deepEqual(wrong, []);
});

test("every API page of a published package shows its symbol's stability, as its TSDoc says", () => {
  // @act-root/act/internal is outside semantic versioning: no marker.
  const symbolPage =
    /\/docs\/api\/(?!act\/src\/internal\/).+\/(classes|functions|interfaces|type-aliases|variables)\/[^/]+\/index\.html$/;
  const stabilityOf = (file) => /data-stability="?(stable|experimental)/.exec(readFileSync(file, "utf8"))?.[1];
  const symbolPages = htmlFiles(join(build, "docs/api")).filter((file) => symbolPage.test(file));
  assert.ok(symbolPages.length > 150, `only ${symbolPages.length} API symbol pages found`);
  const missing = symbolPages.filter((file) => !stabilityOf(file)).map((file) => relative(build, file));
  assert.deepEqual(missing, [], "API pages without a stability badge (add @stable or @experimental to the TSDoc)");
  // The badge says what the tag says.
  assert.equal(stabilityOf(fileFor("/act-root/docs/api/act/src/classes/Act")), "stable");
  assert.equal(stabilityOf(fileFor("/act-root/docs/api/act/src/type-aliases/Observer")), "experimental");
});

test("a guide that declares its stability in front matter shows it", () => {
  const declared = readdirSync(join(root, "docs/guides"))
    .filter((name) => name.endsWith(".mdx"))
    .map((name) => [name, /^stability: (\w+)$/m.exec(readFileSync(join(root, "docs/guides", name), "utf8"))?.[1]])
    .filter(([, stability]) => stability);
  assert.ok(declared.length > 0, "no guide declares its stability");
  const wrong = declared
    .filter(([name, stability]) => {
      const html = readFileSync(fileFor(`/act-root/docs/guides/${name.replace(/\.mdx$/, "")}`), "utf8");
      return !new RegExp(`data-stability="?${stability}[">\\s]`).test(html);
    })
    .map(([name]) => name);
  assert.deepEqual(wrong, []);
  // A guide that declares none shows none.
  assert.doesNotMatch(readFileSync(fileFor("/act-root/docs/intro"), "utf8"), /data-stability=/);
});
