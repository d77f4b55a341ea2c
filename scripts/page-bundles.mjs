// What JavaScript a page of the built site loads on its first visit, read
// from the build output alone (no browser, so the bytes are deterministic):
//
// - the scripts its HTML names (the deferred-start loader's list: the
//   runtime and the main bundle);
// - the chunks its route needs: Docusaurus matches the address against the
//   route table in the main bundle (the layout routes above the page, then
//   the page's own), takes each route's chunk names (routesChunkNames), and
//   loads each name's entry of the registry (`n.e("<chunk id>")` calls),
//   whose files the runtime names.
//
// Chunks a component loads by itself later (React.lazy, search on first
// use) are not counted: they are not part of the first load.
//
// Every step throws when the build does not look the way it expects, so a
// Docusaurus or bundler upgrade that moves these structures fails the site
// test instead of making the budget pass by counting nothing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const fail = (what) => {
  throw new Error(`scripts/page-bundles.mjs: ${what} (has a Docusaurus or bundler upgrade moved it?)`);
};

/** The HTML file a route path is served from. */
function htmlFile(siteDir, base, path) {
  const rest = path.slice(base.length).replace(/\/$/, "/index");
  const file = join(siteDir, `${rest || "index"}.html`);
  if (!existsSync(file)) fail(`no HTML for ${path} (${file})`);
  return file;
}

/** Reads the structures of a build once; `pageScripts` uses them per page. */
export function readBuild(siteDir, base = "/act-root/") {
  const js = join(siteDir, "assets", "js");
  const files = readdirSync(js).filter((name) => name.endsWith(".js"));
  const main = files.find((name) => /^main\.[0-9a-f]+\.js$/.test(name)) ?? fail("no main bundle");
  const runtime = files.find((name) => /^runtime~main\.[0-9a-f]+\.js$/.test(name)) ?? fail("no runtime chunk");
  const mainSource = readFileSync(join(js, main), "utf8");
  const runtimeSource = readFileSync(join(js, runtime), "utf8");

  // Route key ("<path>-<hash>") → chunk names, a JSON string in the main bundle.
  const chunkNamesJson =
    /JSON\.parse\('(\{"[^']*?-[0-9a-f]{3}":\{"__comp":[^']*)'\)/.exec(mainSource) ??
    fail("no routesChunkNames in the main bundle");
  const routesChunkNames = JSON.parse(chunkNamesJson[1].replace(/\\(.)/g, "$1"));

  // The route table: {path:"…",component:x("…","hash"),exact:!0 …}
  const readRoutes = (source) =>
    [...source.matchAll(/\{path:"([^"]*)",component:[\w$.()0-9,]*?\("([^"]*)","([0-9a-f]{3})"\)(,exact:!0)?/g)].map(
      (m) => ({
        path: m[1],
        key: `${m[2]}-${m[3]}`,
        exact: Boolean(m[4]),
      })
    );
  const routes = readRoutes(mainSource);
  if (routes.length < 2 || !routes.every((r) => r.key in routesChunkNames))
    fail("the route table does not match routesChunkNames");

  // Registry: chunk name → bundler chunk ids, from `name:[()=>…n.e("id")….then(…),"request",moduleId]`.
  const registry = new Map();
  const readRegistry = (source) => {
    for (const m of source.matchAll(
      /(?<=[{,])("[\w-]+"|[A-Za-z_$][\w$]*|0x[0-9a-f]+|\d+):\[\(\)=>(.*?)\.then\([^)]*\)\),"[^"]*",\d+\]/g
    )) {
      // The minifier writes a name as a plain key, or as a number when it is one.
      const key = m[1].startsWith('"') ? m[1].slice(1, -1) : /^(0x|\d)/.test(m[1]) ? String(Number(m[1])) : m[1];
      registry.set(
        key,
        [...m[2].matchAll(/\.e\("?(\w+)"?\)/g)].map((e) => e[1])
      );
    }
  };
  readRegistry(mainSource);
  if (!registry.size) fail("the chunk registry in the main bundle was not found");

  // Runtime: chunk id → file name stem (its name if it has one, else its id).
  const names =
    /"assets\/js\/"\+\(\(\{([^}]*)\}\)\[\w\]\|\|\w\)/.exec(runtimeSource) ?? fail("no chunk-name map in the runtime");
  const stems = new Map([...names[1].matchAll(/([\w]+):"([\w-]+)"/g)].map((m) => [m[1], m[2]]));
  // Chunks without JavaScript (only CSS, which is in the one stylesheet):
  // the runtime marks them loaded instead of fetching them.
  const cssOnly = /if\(\/\^\(([\w|]+)\)\$\/\.test\(\w\)\)\w\[\w\]=0;/.exec(runtimeSource)?.[1].split("|") ?? [];
  const fileOf = (id) => {
    if (cssOnly.includes(id)) return undefined;
    const stem = stems.get(id) ?? id;
    return (
      files.find((name) => name.startsWith(`${stem}.`) && /^[\w~-]+\.[0-9a-f]+\.js$/.test(name)) ??
      fail(`no file for chunk ${id}`)
    );
  };
  const size = (name) => statSync(join(js, name)).size;
  return { siteDir, base, js, main, runtime, routesChunkNames, routes, registry, fileOf, size };
}

/** Chunk names in a route's entry of routesChunkNames (nested objects included). */
function chunkNamesOf(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (value && typeof value === "object") for (const v of Object.values(value)) chunkNamesOf(v, out);
  return out;
}

/**
 * The scripts a page loads on its first visit: `[{ file, bytes, why }]`,
 * where `why` names the routes' chunk names (or "page HTML") that need it.
 */
export function pageScripts(build, path) {
  const html = readFileSync(htmlFile(build.siteDir, build.base, path), "utf8");
  const named = [...new Set([...html.matchAll(/assets\/js\/([\w~.-]+\.js)/g)].map((m) => m[1]))];
  if (!named.includes(build.main) || !named.includes(build.runtime))
    fail(`${path}'s HTML does not name the runtime and main bundle`);
  const why = new Map(named.map((file) => [file, ["page HTML"]]));
  const matches = (r) =>
    r.exact ? r.path === path : path === r.path || path.startsWith(r.path.endsWith("/") ? r.path : `${r.path}/`);
  const matched = build.routes.filter(matches);
  if (!matched.some((r) => r.exact)) fail(`no route matches ${path}`);
  for (const route of matched) {
    for (const name of chunkNamesOf(build.routesChunkNames[route.key])) {
      const ids = build.registry.get(name) ?? fail(`chunk ${name} of route ${route.key} is not in the registry`);
      for (const id of ids) {
        const file = build.fileOf(id);
        if (!file) continue;
        if (!why.has(file)) why.set(file, []);
        why.get(file).push(`${route.path} ${name}`);
      }
    }
  }
  return [...why].map(([file, reasons]) => ({ file, bytes: build.size(file), why: reasons }));
}
