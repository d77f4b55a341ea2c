// Checks the built site (build/, from `npm run build` or scripts/site-build.mjs)
// against the routes the site promises (../shared/spec/site-spec.txt), and the
// build log against broken-link/-anchor warnings (the config keeps them
// warnings so a generated page cannot block a release; this test is what
// keeps the site free of them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { undescribedParameters, undescribedParametersIn } from "./typedoc/parameter-tables.mjs";
import { repository } from "./repository.mjs";

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
const core = {
  classes: ["Act", "ConcurrencyError", "InvariantError", "ValidationError"],
  functions: [
    "act", "build_tracer", "config", "dispose", "disposeAndExit", "extend",
    "patch", "port", "sleep", "state", "validate",
  ],
  interfaces: ["Store"],
  "type-aliases": [
    "ActBuilder", "ActionBuilder", "ActionHandler", "ActionHandlers", "Actor",
    "AsCommitted", "CausationEvent", "Committed", "CommittedMeta", "CommittedOf",
    "Config", "Disposable", "Disposer", "Drain", "DrainOptions", "Emitted",
    "EmptySchema", "Environment", "EventMeta", "EventRegister", "ExitCode",
    "Fetch", "GivenHandlers", "Invariant", "Lease", "LogLevel", "Message",
    "Package", "Patch", "PatchHandler", "PatchHandlers", "Poll", "Query",
    "Reaction", "ReactionHandler", "ReactionOptions", "ReactionPayload",
    "ReactionResolver", "ReactionsRegister", "Registry", "Schema",
    "SchemaRegister", "Schemas", "Snapshot", "State", "StateBuilder",
    "StateSchema", "StateSchemas", "Target", "ZodTypes",
  ],
  variables: [
    "ActorSchema", "CausationEventSchema", "CommittedMetaSchema", "Environments",
    "Errors", "EventMetaSchema", "ExitCodes", "logger", "LogLevels",
    "QuerySchema", "SNAP_EVENT", "store", "TargetSchema", "ZodEmpty",
  ],
};
for (const [kind, names] of Object.entries(core))
  for (const name of names) pages.push(`/act-root/docs/api/act/src/${kind}/${name}`);

// The Postgres store package is documented once its entry point exists
// (docusaurus.config.ts only passes existing entry points to TypeDoc).
const hasPostgres = existsSync(join(root, "packages/act-pg/src/index.ts"));
if (hasPostgres)
  pages.push("/act-root/docs/api/act-pg/src/", "/act-root/docs/api/act-pg/src/classes/PostgresStore");

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

test("every route of the spec is a built page", () => {
  const missing = pages.filter((route) => !fileFor(route));
  assert.deepEqual(missing, [], `routes without a page:\n${missing.join("\n")}`);
});

test("API pages are about the symbol their route names", () => {
  const wrong = [];
  for (const route of pages.filter((r) => /\/api\/act(-pg)?\/src\/[a-z-]+\/[^/]+$/.test(r))) {
    const name = route.split("/").pop();
    const html = readFileSync(fileFor(route), "utf8");
    const title = /<title[^>]*>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
    if (!title.includes(name)) wrong.push(`${route}: title "${title}"`);
  }
  assert.deepEqual(wrong, []);
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
  const api = join(root, "docs", "api");
  assert.ok(existsSync(api), "docs/api is missing: the build generates it");
  const missing = undescribedParametersIn(api);
  assert.deepEqual(missing, [], `parameters without a description (add an @param to the source's TSDoc):\n${missing.join("\n")}`);
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

test("the API index says where to start and lists the core package before the Postgres one", () => {
  const html = readFileSync(fileFor("/act-root/docs/api/"), "utf8");
  assert.match(html, /Start here/);
  for (const route of ["functions/state", "functions/act", "classes/Act", "variables/store"])
    assert.match(html, new RegExp(`href="?/act-root/docs/api/act/src/${route}[">\\s]`), route);
  const core = html.indexOf('>@act-root/act<');
  const postgres = html.indexOf('>@act-root/act-pg<');
  assert.ok(core > 0 && (!hasPostgres || core < postgres), "@act-root/act must be listed before @act-root/act-pg");
});

test("the API pages of the main concepts link the guide that explains them", () => {
  const concepts = ["functions/state", "functions/act", "classes/Act", "interfaces/Store", "type-aliases/Query"]
    .map((route) => `/act-root/docs/api/act/src/${route}`)
    .concat(hasPostgres ? ["/act-root/docs/api/act-pg/src/classes/PostgresStore"] : []);
  const without = concepts.filter((route) => !/href="?\/act-root\/docs\/concepts\//.test(readFileSync(fileFor(route), "utf8")));
  assert.deepEqual(without, []);
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
    '"Edit this page" on the introduction': [fileFor("/act-root/docs/intro"), `href="?${escaped}/edit/main/docs/intro\\.mdx`],
  };
  const wrong = Object.entries(links)
    .filter(([, [file, pattern]]) => !new RegExp(pattern).test(readFileSync(file, "utf8")))
    .map(([what]) => `${what} does not point at ${url}`);
  assert.deepEqual(wrong, []);
});
