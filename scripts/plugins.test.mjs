// node --import tsx --test scripts/plugins.test.mjs (npm run test:plugins) —
// the site's local plugins (src/plugins/*): the Markdown twins copy no file
// from outside the repository, and every swap of a module inside a dependency
// still finds that module where the swap expects it, so an upgrade that moves
// it fails here instead of silently undoing the swap.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { runInNewContext } from "node:vm";
import { dirname, join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { mdxToMarkdown, resolveInsideRoot } from "../src/plugins/llms-txt/index.ts";
import {
  ESCAPING_JOINER,
  JOINER_REQUEST,
  SEARCH_BAR_FOLDER,
  isSearchBarJoiner,
} from "../src/plugins/search-escape/index.ts";
import { PRELOAD_REQUEST, CORE_CLIENT_FOLDER, originalPreload } from "../src/plugins/chunk-failure-screen/index.ts";
import { inEntryPointOrder } from "./typedoc/front-matter.mjs";
import { checkAccessible } from "../src/plugins/diagrams/index.ts";
import { scopeIds } from "../src/plugins/diagrams/scope-ids.ts";
import {
  SCRIPT_LOOP,
  deferredStartTemplate,
  docusaurusTemplate,
  loaderSource,
} from "../src/plugins/deferred-start/index.ts";
import { idlePrefetching } from "../src/client/idle-prefetch.ts";
import { loadOnce } from "../src/client/load-once.ts";
import { EMPTY_MODULE, PRISM_CLIENT_MODULE } from "../src/plugins/prism-with-code-blocks/index.ts";
import { HELPERS, ISSUER, STAND_IN } from "../src/plugins/lean-tslib/index.ts";
import { BROWSER_READS, CONFIG_MODULE, DROPPED } from "../src/plugins/lean-site-config/index.ts";
import { identifierNames, overlaps, siteConfigReads } from "./site-config-reads.mjs";
import { cssVariableTheme, lightCodeTheme, darkCodeTheme } from "../src/prism-themes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

describe("Markdown twins: imports stay inside the repository", () => {
  const sandbox = realpathSync(mkdtempSync(join(tmpdir(), "twins-")));
  const repo = join(sandbox, "repo");
  mkdirSync(join(repo, "packages/app/src"), { recursive: true });
  writeFileSync(join(repo, "packages/app/src/main.ts"), "export const inside = 1;\n");
  writeFileSync(join(sandbox, "secret.txt"), "outside the repository\n");
  symlinkSync(join(sandbox, "secret.txt"), join(repo, "packages/app/src/link.ts"));
  after(() => rmSync(sandbox, { recursive: true, force: true }));

  const page = (path) =>
    `import Code from '!!raw-loader!@site/${path}';\nimport CodeBlock from '@theme/CodeBlock';\n\n# Page\n\n<CodeBlock language="ts">\n{Code}\n</CodeBlock>\n`;
  const twin = (path) =>
    mdxToMarkdown(page(path), { title: "Page", description: "" }, repo, "https://example.org/base");

  test("a file of the repository is inlined", () => {
    assert.match(twin("packages/app/src/main.ts"), /export const inside = 1;/);
    assert.equal(resolveInsideRoot(repo, "packages/app/src/main.ts"), join(repo, "packages/app/src/main.ts"));
  });

  test("`..` out of the repository is refused, and nothing of the file is written", () => {
    assert.throws(() => twin("../secret.txt"), /outside the repository/);
    assert.throws(() => twin("packages/../../secret.txt"), /outside the repository/);
  });

  test("the machine's files are refused (the path of the original report)", () => {
    assert.throws(() => twin("../../etc/hostname"), /outside the repository/);
    assert.throws(() => resolveInsideRoot(repo, "/etc/hostname"), /outside the repository/);
  });

  test("a symbolic link that leads out of the repository is refused", () => {
    assert.throws(() => twin("packages/app/src/link.ts"), /outside the repository/);
  });

  test("a name that only starts with dots stays inside", () => {
    writeFileSync(join(repo, "..notes.md"), "dots\n");
    assert.equal(resolveInsideRoot(repo, "..notes.md"), join(repo, "..notes.md"));
  });
});

describe("search-escape: the search plugin's path joiner is where the swap expects it", () => {
  const pluginDir = dirname(require.resolve("@easyops-cn/docusaurus-search-local/package.json"));
  const searchBar = join(pluginDir, "dist/client/client/theme/SearchBar");

  test("the suggestions import the joiner by the request the swap matches", () => {
    const template = readFileSync(join(searchBar, "SuggestionTemplate.js"), "utf8");
    const imported = /from\s+"([^"]*concatDocumentPath[^"]*)"/.exec(template)?.[1];
    assert.ok(imported, "SuggestionTemplate.js no longer imports concatDocumentPath");
    assert.ok(JOINER_REQUEST.test(imported), `the request changed: ${imported}`);
    assert.ok(SEARCH_BAR_FOLDER.test(searchBar), `the folder moved: ${searchBar}`);
    assert.ok(isSearchBarJoiner(imported, searchBar));
    // ...and still put it into an HTML string, which is why it must escape.
    assert.match(template, /\$\{concatDocumentPath\(/);
  });

  test("the joiner exists and the replacement has its export", async () => {
    const original = await import(join(pluginDir, "dist/client/client/utils/concatDocumentPath.js"));
    const replacement = await import(ESCAPING_JOINER);
    assert.equal(typeof original.concatDocumentPath, "function");
    assert.equal(original.concatDocumentPath(["a", "b"]), replacement.concatDocumentPath(["a", "b"]));
    assert.equal(
      replacement.concatDocumentPath(["API", "Type Alias: Snapshot<S, E>", `<img src=x onerror="x()">`]),
      "API › Type Alias: Snapshot&lt;S, E&gt; › &lt;img src=x onerror=&quot;x()&quot;&gt;"
    );
  });

  test("the search page (React text) is left alone", () => {
    assert.equal(
      isSearchBarJoiner("../../utils/concatDocumentPath", join(pluginDir, "dist/client/client/theme/SearchPage")),
      false
    );
  });
});

describe("chunk-failure-screen: Docusaurus' route preloader is where the swap expects it", () => {
  const clientDir = dirname(originalPreload(root));

  test("the client folder matches and still imports ./preload", () => {
    assert.ok(CORE_CLIENT_FOLDER.test(clientDir), `the folder moved: ${clientDir}`);
    const importers = readdirSync(clientDir)
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(join(clientDir, file), "utf8"))
      .join("\n");
    const request = /from\s+['"](\.\/preload(?:\.js)?)['"]/.exec(importers)?.[1];
    assert.ok(request, "no module of @docusaurus/core/lib/client imports ./preload any more");
    assert.ok(PRELOAD_REQUEST.test(request), `the request changed: ${request}`);
  });

  test("Docusaurus' own preloader is still the one src/client/preload-once.js repeats", () => {
    // Ours differs only by passing the path to each matched component; if
    // Docusaurus changes its preloader, ours must be brought in line.
    const code = readFileSync(originalPreload(root), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "")
      .replace(/\s+/g, " ")
      .trim();
    assert.equal(
      code,
      "import routes from '@generated/routes'; import { matchRoutes } from 'react-router-config'; " +
        "export default function preload(pathname) { const matches = Array.from(new Set([pathname, decodeURI(pathname)])) " +
        ".map((p) => matchRoutes(routes, p)) .flat(); return Promise.all(matches.map((match) => match.route.component.preload?.())); }"
    );
  });
});

describe("front-matter: the API index lists the packages in entry-point order", () => {
  const index = [
    "## Modules",
    "",
    "| Module | Description |",
    "| ------ | ------ |",
    "| [@act-root/act-pg](act-pg/src/index.md) | the PostgreSQL store |",
    "| [@act-root/act](act/src/index.md) | the library |",
    "",
    "| [not a module row](elsewhere.md) | stays |",
  ].join("\n");

  test("the core package comes first, whatever the folders' alphabetical order", () => {
    const sorted = inEntryPointOrder(index, [
      `${root}packages/act/src/index.ts`,
      `${root}packages/act-pg/src/index.ts`,
    ]);
    const rows = sorted.split("\n").filter((line) => line.startsWith("| ["));
    assert.deepEqual(rows, [
      "| [@act-root/act](act/src/index.md) | the library |",
      "| [@act-root/act-pg](act-pg/src/index.md) | the PostgreSQL store |",
      "| [not a module row](elsewhere.md) | stays |",
    ]);
  });

  test("another entry-point order is followed too", () => {
    const sorted = inEntryPointOrder(index, ["packages/act-pg/src/index.ts", "packages/act/src/index.ts"]);
    assert.equal(sorted, index);
  });
});

describe("diagrams: what a rendered diagram must carry", () => {
  test("a diagram without accTitle and accDescr fails the build, naming the file", () => {
    assert.throws(
      () => checkAccessible("flowchart LR\n  a --> b", "docs/x.mdx"),
      /docs\/x\.mdx: .*accTitle and accDescr/
    );
    assert.throws(() => checkAccessible("flowchart LR\n  accTitle: A\n  a --> b", "docs/x.mdx"), /needs accDescr\b/);
    assert.doesNotThrow(() => checkAccessible("flowchart LR\n  accTitle: A\n  accDescr: B\n  a --> b", "docs/x.mdx"));
  });

  test("inner ids and their references are prefixed by the root id; the root keeps its own", () => {
    const svg =
      '<svg id="d-light" aria-labelledby="title-1"><title id="title-1">T</title><marker id="arrowhead"/>' +
      '<line marker-end="url(#arrowhead)"/><use href="#arrowhead-2"/><g id="arrowhead-2"/><style>#d-light .x{fill:#333}</style></svg>';
    const out = scopeIds(svg, "d-light");
    assert.match(out, /<svg id="d-light" aria-labelledby="d-light-title-1">/);
    assert.match(out, /<marker id="d-light-arrowhead"\/>/);
    assert.match(out, /url\(#d-light-arrowhead\)/);
    assert.match(out, /href="#d-light-arrowhead-2"/);
    assert.match(out, /<g id="d-light-arrowhead-2"\/>/);
    assert.match(out, /#d-light \.x\{fill:#333\}/, "colours and the root's own selector are untouched");
  });
});

describe("deferred-start: Docusaurus' page template still writes its scripts the way the swap expects", () => {
  test("the script loop is found in Docusaurus' template and replaced by the inline loader", () => {
    const template = docusaurusTemplate();
    assert.match(template, SCRIPT_LOOP);
    const deferred = deferredStartTemplate(template);
    assert.doesNotMatch(deferred, /<script src=[^>]*defer>/);
    assert.match(
      deferred,
      /<script>.*JSON\.stringify\(it\.scripts\.map\(\(script\) => it\.baseUrl \+ script\)\).*<\/script>/s
    );
  });

  test("a template without the loop fails loudly instead of shipping the scripts unchanged", () => {
    assert.throws(() => deferredStartTemplate("<html><head></head></html>"), /no longer writes its scripts/);
  });

  test("the inlined loader runs as a page script and adds the bundles in order once the browser is idle", () => {
    const appended = [];
    const timers = [];
    const page = {
      document: {
        readyState: "complete",
        createElement: () => ({}),
        head: { appendChild: (element) => appended.push(element) },
      },
      addEventListener: () => {},
      removeEventListener: () => {},
      requestIdleCallback: (callback) => callback(),
      setInterval: (callback) => timers.push(callback),
      clearInterval: () => {},
    };
    page.window = page;
    runInNewContext(loaderSource(JSON.stringify(["/r.js", "/m.js"])), page);
    assert.deepEqual(
      appended.map(({ src, async }) => ({ src, async })),
      [
        { src: "/r.js", async: false },
        { src: "/m.js", async: false },
      ]
    );
    assert.equal(timers.length, 1, "it then waits for React to take the page over");
  });
});

describe("load-once: code loaded on demand is loaded once, and again after a failure", () => {
  test("callers share one load; a failed load is forgotten, so the next call tries again", async () => {
    let calls = 0;
    let fail = true;
    const once = loadOnce(async () => {
      calls++;
      if (fail) throw new Error("offline");
      return "code";
    });
    assert.equal(once.started(), false);
    await assert.rejects(Promise.all([once(), once()]), /offline/);
    assert.equal(calls, 1, "two callers during one load share it");
    assert.equal(once.current(), undefined);
    assert.equal(once.started(), false, "a failed load is forgotten");
    fail = false;
    assert.equal(await once(), "code");
    assert.equal(await once(), "code");
    assert.equal(calls, 2, "loaded once more after the failure, then kept");
    assert.equal(once.current(), "code");
    assert.equal(once.started(), true);
  });
});

describe("idle-prefetch: route prefetches wait for idle periods", () => {
  test("prefetches run only in idle periods, in order, as many as the period allows; preload stays immediate", () => {
    const calls = [];
    const docusaurus = {
      prefetch: (path) => calls.push(["prefetch", path]),
      preload: (path) => calls.push(["preload", path]),
    };
    const periods = [];
    const wrapped = idlePrefetching(docusaurus, (run) => periods.push(run));
    wrapped.prefetch("/a");
    wrapped.prefetch("/b");
    wrapped.prefetch("/c");
    wrapped.preload("/d");
    assert.deepEqual(calls, [["preload", "/d"]], "nothing prefetched before the page is idle");
    assert.equal(periods.length, 1, "one idle period is asked for, not one per link");
    let left = 1;
    periods.shift()({ timeRemaining: () => (left-- > 0 ? 10 : 0) });
    assert.deepEqual(calls.slice(1), [
      ["prefetch", "/a"],
      ["prefetch", "/b"],
    ]);
    assert.equal(periods.length, 1, "the rest waits for the next idle period");
    periods.shift()({ timeRemaining: () => 0 });
    assert.deepEqual(calls.slice(3), [["prefetch", "/c"]], "a period with no time left still runs one");
    assert.equal(periods.length, 0);
  });

  test("routes that load more by themselves are asked after each prefetch Docusaurus makes, and only then", () => {
    const more = [];
    const docusaurus = { prefetch: (path) => path !== "/slow", preload: () => {} };
    const periods = [];
    const wrapped = idlePrefetching(
      docusaurus,
      (run) => periods.push(run),
      (path) => more.push(path)
    );
    wrapped.prefetch("/a");
    wrapped.prefetch("/slow");
    assert.deepEqual(more, [], "not before the page is idle");
    periods.shift()({ timeRemaining: () => 10 });
    assert.deepEqual(more, ["/a"], "not when Docusaurus prefetches nothing (slow connection, fetched already)");
  });
});

describe("prism-with-code-blocks: the classic theme's Prism client module is where the swap expects it", () => {
  test("the theme lists the module among its client modules, at a path the swap matches", async () => {
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const { default: themeClassic } = await import(join(themeDir, "lib/index.js"));
    const theme = themeClassic(
      {
        siteDir: root,
        siteConfig: { themeConfig: { prism: {} } },
        i18n: { currentLocale: "en", localeConfigs: { en: { direction: "ltr" } } },
      },
      { customCss: [] }
    );
    // Docusaurus resolves a plugin's relative client modules against its folder.
    const modules = theme.getClientModules().map((path) => (path.startsWith(".") ? join(themeDir, "lib", path) : path));
    const prism = modules.filter((path) => PRISM_CLIENT_MODULE.test(path));
    assert.equal(prism.length, 1, `no client module matches: ${modules.join(", ")}`);
    assert.match(readFileSync(require.resolve(prism[0]), "utf8"), /prismIncludeLanguages\(Prism\)/);
  });

  test("the stand-in registers nothing", () => {
    assert.doesNotMatch(readFileSync(EMPTY_MODULE, "utf8"), /import\s|require\(/);
  });
  // src/theme/CodeBlock/Kept.tsx keeps the server's HTML of a block and
  // renders the theme's buttons where the theme puts them, with the context
  // the theme gives them. These are the theme's parts it relies on.
  test("the theme's block puts its buttons after the <pre>, inside the <pre>'s parent", () => {
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const layout = readFileSync(join(themeDir, "lib/theme/CodeBlock/Layout/index.js"), "utf8");
    assert.match(layout, /<div className=\{styles\.codeBlockContent\}>\s*<Content \/>\s*<Buttons \/>\s*<\/div>/);
    const content = readFileSync(join(themeDir, "lib/theme/CodeBlock/Content/index.js"), "utf8");
    assert.match(content, /<Pre\s+ref=\{wordWrap\.codeBlockRef\}/, "the word-wrap state works on the <pre>");
    const buttons = readFileSync(join(themeDir, "lib/theme/CodeBlock/Buttons/index.js"), "utf8");
    assert.doesNotMatch(buttons, /prism/i, "the buttons need no Prism");
  });

  test("theme-common still exports what the kept block uses, and the copy button copies the metadata's code", () => {
    // Read, not imported: the theme's modules hold JSX.
    const common = join(dirname(require.resolve("@docusaurus/theme-common/internal")), "..");
    const internal = readFileSync(join(common, "lib/internal.js"), "utf8");
    for (const name of ["createCodeBlockMetadata", "CodeBlockContextProvider", "useCodeWordWrap"])
      assert.match(internal, new RegExp(`\\b${name}\\b`), name);
    const utils = readFileSync(join(common, "lib/utils/codeBlockUtils.js"), "utf8");
    assert.match(utils, /export function createCodeBlockMetadata\(params\)/);
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const string = readFileSync(join(themeDir, "lib/theme/CodeBlock/Content/String.js"), "utf8");
    for (const field of [
      "code: props.children",
      "className: props.className",
      "metastring: props.metastring",
      "magicComments: prism.magicComments",
      "defaultLanguage: prism.defaultLanguage",
      "language: props.language",
      "title: props.title",
      "showLineNumbers: props.showLineNumbers",
    ])
      assert.ok(string.includes(field), `the theme builds the metadata from ${field}, as Kept.tsx does`);
    const copy = readFileSync(join(themeDir, "lib/theme/CodeBlock/Buttons/CopyButton/index.js"), "utf8");
    assert.match(copy, /metadata: \{code\}/);
  });

  test("the code colours: one theme of CSS variables, each variable set in both modes", () => {
    const { theme, css } = cssVariableTheme(lightCodeTheme, darkCodeTheme);
    const [light, dark] = [/^:root\{([^}]*)\}/.exec(css)[1], /\[data-theme="dark"\]\{([^}]*)\}/.exec(css)[1]];
    const names = (block) =>
      block
        .split(";")
        .map((d) => d.split(":")[0])
        .sort();
    assert.deepEqual(names(light), names(dark));
    for (const rule of theme.styles)
      for (const value of Object.values(rule.style)) assert.match(String(value), /^var\(--tk-[\w-]+\)$/);
    assert.match(light, /--tk-keyword-c:#a0111f/);
    assert.match(dark, /--tk-comment-c:#aab1bd/);
  });
});

describe("lean-tslib: Docusaurus' client code takes only the helpers the stand-in has from tslib", () => {
  test("@docusaurus/utils-common uses no other tslib helper, and is where the swap expects it", () => {
    const lib = join(dirname(require.resolve("@docusaurus/utils-common")), ".");
    assert.match(join(lib, "index.js"), ISSUER);
    const used = new Set();
    for (const file of readdirSync(lib).filter((f) => f.endsWith(".js")))
      for (const m of readFileSync(join(lib, file), "utf8").matchAll(/tslib_\d+\.(\w+)/g)) used.add(m[1]);
    assert.ok(used.size > 0, "the package no longer uses tslib: the plugin can go");
    assert.deepEqual(
      [...used].filter((helper) => !HELPERS.includes(helper)),
      [],
      "helpers the stand-in lacks"
    );
  });

  test("the stand-in's helper does what tslib's does", async () => {
    const standIn = await import(STAND_IN);
    const tslib = require("tslib");
    for (const mod of [{ __esModule: true, default: 1 }, { a: 1 }, () => 2]) {
      assert.deepEqual(standIn.__importDefault(mod), tslib.__importDefault(mod));
    }
  });
});

describe("api-apart: the API pages' part of the generated files loads with the API pages, and nothing is lost", () => {
  const t = require("../src/plugins/api-apart/transform.cjs");
  const options = { sidebar: "api", docPrefix: "api/", routePrefix: "/b/docs/api/" };
  const doc = (id, sidebar) => ({ id, title: id, description: `about ${id}`, sidebar });
  const leaf = (id, sidebar, path = `/b/docs/${id}`) => ({
    path,
    component: "@theme/DocItem",
    exact: true,
    sidebar,
    modules: { content: `@site/docs/${id}.md` },
  });
  const api = ["api/index", "api/act/src/classes/Act", "api/act/src/functions/act", "api/act-pg/src/index"];
  const apiPath = (id) => `/b/docs/${id.replace(/index$/, "")}`;
  const guides = ["intro", "concepts/state"];

  /** Runs a generated module's code: imports become the given bindings, the default export is returned. */
  const run = (code, bindings) => {
    const names = [];
    const body = code
      .replace(/^import (\{ (\w+) \}|\w+) from (['"])[^'"]+\3;$/gm, (_, what, named) => {
        names.push(named ?? what);
        return "";
      })
      .replace("export default ", "return ");
    const require = { resolveWeak: (request) => `weak:${request}` };
    return new Function(...names, "require", body)(...names.map((n) => bindings[n]), require);
  };

  /** Generates the files with Docusaurus' own code generator. */
  async function generate() {
    const { generateRouteFiles } = require("@docusaurus/core/lib/server/codegen/codegenRoutes.js");
    const dir = mkdtempSync(join(tmpdir(), "act-routes-"));
    const version = {
      version: {
        pluginId: "default",
        version: "current",
        docsSidebars: { docs: ["g"], api: ["a"] },
        docs: Object.fromEntries([
          ...guides.map((id) => [id, doc(id, "docs")]),
          ...api.map((id) => [id, doc(id, "api")]),
        ]),
      },
    };
    await generateRouteFiles({
      generatedFilesDir: dir,
      routes: [
        { path: "/b/search", component: "@theme/SearchPage", exact: true },
        {
          path: "/b/docs",
          component: "@theme/DocVersionRoot",
          props: version,
          plugin: { name: "docusaurus-plugin-content-docs", id: "default" },
          routes: [
            {
              path: "/b/docs",
              component: "@theme/DocRoot",
              routes: [
                leaf(guides[0], "docs"),
                ...api.map((id) => leaf(id, "api", apiPath(id))),
                leaf(guides[1], "docs"),
              ],
            },
          ],
        },
      ],
    });
    const read = (name) => readFileSync(join(dir, name), "utf8");
    const props = readdirSync(join(dir, "docusaurus-plugin-content-docs", "default", "p"));
    const files = {
      routes: read("routes.js"),
      registry: read("registry.js"),
      chunkNames: JSON.parse(read("routesChunkNames.json")),
      propsFile: join(dir, "docusaurus-plugin-content-docs", "default", "p", props[0]),
      version,
    };
    rmSync(dir, { recursive: true, force: true });
    return files;
  }
  const globalData = () => ({
    "docusaurus-plugin-content-docs": {
      default: {
        path: "/b/docs",
        versions: [
          {
            name: "current",
            docs: [
              ...guides.map((id) => ({ id, path: `/b/docs/${id}`, sidebar: "docs" })),
              ...api.map((id) => ({ id, path: apiPath(id), sidebar: "api" })),
            ],
            sidebars: { docs: { link: { path: "/b/docs/intro" } }, api: { link: { path: "/b/docs/api/" } } },
          },
        ],
      },
    },
  });
  const created = (path, hash) => ({ created: `${path}-${hash}` });

  test("the main route table keeps every other route, and one route stands exactly for the API pages", async () => {
    const files = await generate();
    const standIn = { preload() {} };
    const main = run(t.mainRoutesModule(t.readRoutes(files.routes), options, "stand-in"), {
      ComponentCreator: created,
      apiPages: () => standIn,
    });
    assert.equal(main[0].path, "/b/search");
    const leaves = main[1].routes[0].routes;
    assert.deepEqual(
      leaves.map((r) => r.path),
      ["/b/docs/intro", api.map(apiPath), "/b/docs/concepts/state"]
    );
    assert.equal(leaves[1].component, standIn);
    assert.equal(leaves[1].exact, true);
    assert.equal(leaves[1].sidebar, "api");
    assert.match(leaves[0].component.created, /^\/b\/docs\/intro-[0-9a-f]{3}$/);
  });

  test("main registry and chunk table plus the API part are the whole registry and chunk table", async () => {
    const files = await generate();
    const routes = t.readRoutes(files.routes);
    const registry = run(t.mainRegistryModule(files.registry, routes, files.chunkNames, options), {});
    const chunkNames = JSON.parse(JSON.stringify(t.mainChunkNames(files.chunkNames, routes, options)));
    const data = globalData();
    const whole = run(files.registry, {});
    // Nothing an API page alone uses is in the main registry; what guides use stays.
    const requestOf = (entries) => Object.values(entries).map((entry) => entry[1]);
    assert.equal(requestOf(whole).filter((request) => request.includes("/docs/api/")).length, api.length);
    assert.ok(!requestOf(registry).some((request) => request.includes("/docs/api/")));
    assert.ok(requestOf(registry).includes("@site/docs/intro.md"));
    assert.ok(requestOf(registry).includes("@theme/DocItem"));
    assert.ok(!Object.keys(chunkNames).some((key) => key.startsWith("/b/docs/api/")));

    let added;
    const pages = run(
      t.apiPartModule(
        {
          routes,
          chunkNames: files.chunkNames,
          registry: t.readRegistry(files.registry),
          globalData: data,
          versionProps: [files.version],
        },
        options,
        "extras"
      ),
      {
        ComponentCreator: created,
        registry,
        routesChunkNames: chunkNames,
        globalData: t.splitGlobalData(data, options).trimmed,
        addApiPart: (targets, part) => {
          added = part;
          Object.assign(targets.registry, part.registry);
          Object.assign(targets.routesChunkNames, part.routesChunkNames);
        },
      }
    );
    assert.deepEqual(
      pages.map((p) => [p.path, p.exact, p.sidebar]),
      api.map((id) => [apiPath(id), true, "api"])
    );
    assert.deepEqual(Object.keys(registry).sort(), Object.keys(whole).sort());
    assert.deepEqual(requestOf(registry).sort(), requestOf(whole).sort());
    assert.deepEqual(chunkNames, files.chunkNames);
    assert.deepEqual(added.globalDocs, [
      { pluginId: "default", version: "current", docs: api.map((id) => ({ id, path: apiPath(id), sidebar: "api" })) },
    ]);
    assert.deepEqual(added.versions, [
      {
        pluginId: "default",
        version: "current",
        docsSidebars: { api: ["a"] },
        docs: Object.fromEntries(api.map((id) => [id, doc(id, "api")])),
      },
    ]);
    assert.match(files.propsFile, t.VERSION_PROPS_RE);
    assert.deepEqual(t.versionPropsRequests(files.registry).length, 1);
  });

  test("guides' data keeps every guide whole and no API doc; the API part has them all", () => {
    const data = globalData();
    const { trimmed } = t.splitGlobalData(data, options);
    assert.deepEqual(
      trimmed["docusaurus-plugin-content-docs"].default.versions[0].docs.map((d) => d.id),
      guides
    );
    assert.deepEqual(trimmed["docusaurus-plugin-content-docs"].default.versions[0].sidebars, {
      docs: { link: { path: "/b/docs/intro" } },
      api: { link: { path: "/b/docs/api/" } },
    });
    const props = {
      version: {
        pluginId: "default",
        version: "current",
        docsSidebars: { docs: ["g"], api: ["a"] },
        docs: { intro: doc("intro", "docs"), "api/x": doc("api/x", "api") },
      },
    };
    const { trimmed: version, extras } = t.splitVersion(props, options);
    assert.deepEqual(version.version.docsSidebars, { docs: ["g"] });
    assert.deepEqual(version.version.docs, { intro: doc("intro", "docs") });
    assert.deepEqual(extras.docs, { "api/x": doc("api/x", "api") });
  });

  test("files that no longer look as expected fail the build, naming what is missing", () => {
    assert.throws(() => t.readRoutes("export default [];"), /routes\.js does not start with its two imports/);
    assert.throws(() => t.readRegistry("module.exports = {};"), /registry\.js is not one `export default/);
    assert.throws(
      () => t.readRegistry('export default {\n  "a": require("x"),\n};'),
      /registry\.js has a line this plugin cannot read/
    );
    assert.throws(
      () => t.splitRoutes([{ path: "/b/docs/intro", exact: true }], options),
      /no route under \/b\/docs\/api\//
    );
    assert.throws(() => t.splitGlobalData({}, options), /the global data has no docs plugin/);
    assert.throws(() => t.splitVersion({ version: {} }, options), /no longer has docsSidebars and docs/);
  });

  test("the docs plugin still puts every sidebar and every doc into the version object, and the docs list into the global data", () => {
    const props = readFileSync(require.resolve("@docusaurus/plugin-content-docs/lib/props.js"), "utf8");
    assert.match(props, /docsSidebars: toSidebarsProp\(loadedVersion\)/);
    assert.match(props, /docs: toVersionDocsProp\(loadedVersion\)/);
    const global = readFileSync(require.resolve("@docusaurus/plugin-content-docs/lib/globalData.js"), "utf8");
    assert.match(global, /docs: version\.docs\s*\.map\(toGlobalDataDoc\)/);
  });
});

describe("lean-site-config: the browser's copy of the site config keeps what the browser reads", () => {
  const transform = require("../src/plugins/lean-site-config/transform.cjs");
  /** The browser's copy of a generated module, evaluated. */
  const evaluate = async (source) =>
    (await import(`data:text/javascript,${encodeURIComponent(transform.browserConfigModule(source))}`)).default;

  test("on the module Docusaurus generates from this site's config: the fields read are kept as they are, the others go", async () => {
    const { loadContext } = require("@docusaurus/core/lib/server/site.js");
    const { generateSiteFiles } = require("@docusaurus/core/lib/server/codegen/codegen.js");
    const context = await loadContext({ siteDir: root });
    assert.match(
      join(context.generatedFilesDir, "docusaurus.config.mjs"),
      CONFIG_MODULE,
      "the module the rule matches"
    );
    const dir = mkdtempSync(join(tmpdir(), "act-config-"));
    try {
      await generateSiteFiles({
        generatedFilesDir: dir,
        siteConfig: context.siteConfig,
        clientModules: [],
        routes: [],
        globalData: {},
        siteMetadata: {},
        siteStorage: context.siteStorage,
        i18n: context.i18n,
        codeTranslations: {},
      });
      const file = join(dir, "docusaurus.config.mjs");
      const source = readFileSync(file, "utf8");
      const whole = (await import(`data:text/javascript,${encodeURIComponent(source)}`)).default;
      const browser = await evaluate(source);
      assert.ok(whole.ssrTemplate && whole.plugins.length && whole.markdown, "the whole config has what is dropped");
      // Every field the browser reads, as the server has it.
      const at = (config, path) => path.split(".").reduce((value, key) => value?.[key], config);
      for (const path of BROWSER_READS) assert.deepEqual(at(browser, path), at(whole, path), path);
      for (const path of [
        "title",
        "baseUrl",
        "url",
        "favicon",
        "titleDelimiter",
        "themeConfig",
        "future.experimental_router",
      ])
        assert.notEqual(at(browser, path), undefined, `${path} is in the browser's copy`);
      for (const path of DROPPED) assert.equal(at(browser, path), undefined, `${path} is dropped`);
      // Nothing else goes: every field not dropped is still there.
      const dropped = new Set(DROPPED.filter((path) => !path.includes(".")));
      assert.deepEqual(
        Object.keys(browser),
        Object.keys(whole).filter((key) => !dropped.has(key))
      );
      assert.deepEqual(browser.future, { experimental_router: whole.future.experimental_router });
      const size = (config) => JSON.stringify(config).length;
      assert.ok(size(browser) < size(whole) / 2, `${size(browser)} of ${size(whole)} characters kept`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a module of another shape fails the build with a clear error instead of going through whole", () => {
    const shape = /lean-site-config: .*Docusaurus changed how it writes \.docusaurus\/docusaurus\.config\.mjs/;
    assert.throws(
      () => transform.browserConfigModule("export const config = {};\n"),
      /no longer a comment and `export default/
    );
    assert.throws(() => transform.browserConfigModule("module.exports = {};\n"), shape);
    assert.throws(() => transform.browserConfigModule("export default {title: 'Act'};\n"), /no longer JSON/);
    assert.throws(
      () => transform.browserConfigModule('export default {"title": "Act"};\n'),
      /no baseUrl, themeConfig or future/
    );
    assert.doesNotThrow(() =>
      transform.browserConfigModule('/* header */\nexport default {"baseUrl": "/", "themeConfig": {}, "future": {}};\n')
    );
  });

  test("every field of Docusaurus' config is either kept or dropped, and the lists name real fields", () => {
    const { ConfigSchema } = require("@docusaurus/core/lib/server/configValidation.js");
    const schema = ConfigSchema.describe().keys;
    const known = [
      ...Object.keys(schema).filter((key) => key !== "future"),
      ...Object.keys(schema.future.keys).map((key) => `future.${key}`),
    ].sort();
    const decided = [...BROWSER_READS, ...DROPPED].sort();
    assert.deepEqual(
      known.filter((path) => !decided.includes(path)),
      [],
      "fields of the config that neither list names: does the browser read them?"
    );
    assert.deepEqual(
      decided.filter((path) => !known.includes(path)),
      [],
      "listed fields Docusaurus' config no longer has"
    );
    assert.deepEqual(
      BROWSER_READS.filter((path) => DROPPED.includes(path)),
      [],
      "fields both kept and dropped"
    );
  });

  // The browser code that can reach the config: Docusaurus' client and theme
  // code, the local search plugin's client, and the site's own code. (No
  // other dependency imports @docusaurus/useDocusaurusContext or the
  // generated config.)
  const nodeModules = join(root, "node_modules");
  const docusaurus = join(nodeModules, "@docusaurus");
  const clientFolders = [
    ...readdirSync(docusaurus).flatMap((pkg) => ["lib/client", "lib/theme"].map((sub) => join(docusaurus, pkg, sub))),
    join(docusaurus, "theme-common/lib"),
    join(nodeModules, "@easyops-cn/docusaurus-search-local/dist/client"),
    join(root, "src"),
  ];
  const sources = (folder) =>
    readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(m?js|jsx|tsx?)$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
      .map((entry) => join(entry.parentPath, entry.name));
  const clientFiles = [...new Set(clientFolders.flatMap((folder) => (existsSync(folder) ? sources(folder) : [])))];
  // Whole-object uses the reading cannot follow, each checked by hand.
  const OPAQUE = {
    // The context itself: `{ siteConfig, siteMetadata, … }` from the module.
    "@docusaurus/core/lib/client/docusaurusContext.js": 1,
    // The blog (off here) hands it to a helper of the same file that reads `siteConfig.url`.
    "@docusaurus/plugin-content-blog/lib/client/structuredDataUtils.js": 1,
    // The debug plugin's config page (development server only) shows it whole.
    "@docusaurus/plugin-debug/lib/theme/DebugConfig/index.js": 1,
  };

  test("the client code of Docusaurus, of the search plugin and of src/ reads no dropped field", () => {
    const reads = new Map();
    const opaque = [];
    for (const file of clientFiles) {
      const found = siteConfigReads(readFileSync(file, "utf8"));
      const name = relative(nodeModules, file).startsWith("..") ? relative(root, file) : relative(nodeModules, file);
      for (const path of found.paths) reads.set(path, [...(reads.get(path) ?? []), name]);
      if (found.opaque.length && found.opaque.length !== OPAQUE[name])
        opaque.push(`${name}: ${found.opaque.join("; ")}`);
    }
    // The reading sees the reads this plugin's lists were made from.
    for (const [path, file] of [
      ["baseUrl", "@docusaurus/core/lib/client/exports/Link.js"],
      ["future.experimental_router", "@docusaurus/core/lib/client/clientEntry.js"],
      ["themeConfig", "@docusaurus/theme-common/lib/utils/useThemeConfig.js"],
      ["titleDelimiter", "@docusaurus/theme-common/lib/utils/titleFormatterUtils.js"],
      ["baseUrl", "@easyops-cn/docusaurus-search-local/dist/client/client/theme/SearchBar/SearchBar.jsx"],
      ["organizationName", "src/theme/ErrorPageContent/index.tsx"],
    ])
      assert.ok(reads.get(path)?.includes(file), `${file} reads ${path}, and the reading no longer sees it`);
    assert.deepEqual(opaque, [], "uses of the whole config to check by hand (then list them in OPAQUE)");
    const conflicts = [...reads].flatMap(([path, files]) =>
      DROPPED.filter((dropped) => overlaps(path, dropped)).map(
        (dropped) => `${path} (dropped: ${dropped}) in ${files.join(", ")}`
      )
    );
    assert.deepEqual(conflicts, [], "dropped fields the browser reads");
    const unlisted = [...reads.keys()].filter((path) => !BROWSER_READS.some((kept) => overlaps(path, kept)));
    assert.deepEqual(unlisted, [], "fields read in the browser that BROWSER_READS does not list");
  });

  test("no page under src/pages reads the `config` prop the pages plugin gives it", () => {
    const pages = join(root, "src/pages");
    for (const file of sources(pages).filter((file) => /\.[jt]sx?$/.test(file)))
      assert.ok(!identifierNames(readFileSync(file, "utf8")).has("config"), relative(root, file));
  });

  test("the reading finds each way of reaching the config, and reports what it cannot follow", () => {
    const reads = (source) => siteConfigReads(source);
    assert.deepEqual(reads("const x = siteConfig.ssrTemplate + siteConfig?.future?.v4;").paths, [
      "future.v4",
      "ssrTemplate",
    ]);
    assert.deepEqual(reads("const { plugins, markdown: { format } } = useDocusaurusContext().siteConfig;").paths, [
      "markdown.format",
      "plugins",
    ]);
    assert.deepEqual(reads("const { siteConfig: { i18n, future: { v4 } } } = useDocusaurusContext();").paths, [
      "future.v4",
      "i18n",
    ]);
    assert.deepEqual(reads("const { siteConfig: c } = useDocusaurusContext(); use(c.themes);").paths, ["themes"]);
    assert.deepEqual(reads('import config from "@generated/docusaurus.config";\nconst { presets } = config;').paths, [
      "presets",
    ]);
    assert.deepEqual(
      reads("function A({ siteConfig }) { return siteConfig.clientModules; } // siteConfig.webpack").paths,
      ["clientModules"]
    );
    const passed = reads("const { siteConfig } = useDocusaurusContext();\nshow(siteConfig);").opaque;
    assert.equal(passed.length, 1);
    assert.match(passed[0], /^line 2: .*show\(siteConfig\)/);
    assert.equal(reads("const { siteConfig } = ctx; <View {...siteConfig} />").opaque.length, 1);
    assert.match(reads("const { baseUrl, ...rest } = siteConfig;").opaque.join(), /rest element/);
    assert.match(reads("const { siteConfig: { [key]: value } } = ctx;").opaque.join(), /computed key/);
    assert.ok(
      overlaps("future", "future.v4") && overlaps("future.v4.x", "future.v4") && !overlaps("future.v", "future.v4")
    );
  });
});
