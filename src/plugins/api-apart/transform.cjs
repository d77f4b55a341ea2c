// The edits of ./index.ts, as pure functions of the generated files' text
// or data, so scripts/plugins.test.mjs can run them on what Docusaurus
// generates. Each throws, naming what it missed, when a file no longer has
// the shape it expects: a silent no-op would only make the bundle bigger,
// a wrong edit would break pages.
const VERSION_PROPS_RE = /[\\/]docusaurus-plugin-content-docs[\\/][^\\/]+[\\/]p[\\/][^\\/]+\.json$/;
const REGISTRY_RE = /[\\/]\.docusaurus[\\/]registry\.js$/;
const ROUTES_CHUNK_NAMES_RE = /[\\/]\.docusaurus[\\/]routesChunkNames\.json$/;
const ROUTES_RE = /[\\/]\.docusaurus[\\/]routes\.js$/;
const GLOBAL_DATA_RE = /[\\/]\.docusaurus[\\/]globalData\.json$/;
/** The resource query of the API part's module, and its chunk's name. */
const API_QUERY = "api-part";
const API_CHUNK = "act-api-part";
const DOCS_PLUGIN = "docusaurus-plugin-content-docs";

const fail = (what) => {
  throw new Error(`api-apart: ${what} (has a Docusaurus upgrade changed the generated files?)`);
};

// ---------------------------------------------------------------- routes.js

const CREATED = Symbol("ComponentCreator");
const ROUTES_HEAD =
  /^import React from 'react';\s*import ComponentCreator from '@docusaurus\/ComponentCreator';\s*export default /;

/** The route table of routes.js as data; a component is `{ [CREATED]: [path, hash] }`. */
function readRoutes(source) {
  if (!ROUTES_HEAD.test(source)) fail("routes.js does not start with its two imports and `export default`");
  const body = `return ${source.replace(ROUTES_HEAD, "")}`;
  const routes = new Function("ComponentCreator", body)((path, hash) => ({ [CREATED]: [path, hash] }));
  if (!Array.isArray(routes)) fail("routes.js does not export an array");
  return routes;
}

/** The API pages: leaves under the route prefix shown with the API sidebar. */
function isApiPage(route, { routePrefix, sidebar }) {
  return (
    typeof route.path === "string" &&
    route.path.startsWith(routePrefix) &&
    route.exact === true &&
    route.sidebar === sidebar &&
    !route.routes &&
    Boolean(route.component?.[CREATED])
  );
}

/**
 * Takes the API pages out of the route table. Where they were, one route
 * stands for all of them: exact on exactly their paths, with their sidebar,
 * and `STAND_IN` as its component. Returns that table and the pages.
 */
const STAND_IN = Symbol("API pages");
function splitRoutes(routes, options) {
  const pages = [];
  let lists = 0;
  const walk = (list) => {
    const kept = [];
    let at = -1;
    for (const route of list) {
      if (isApiPage(route, options)) {
        if (at < 0) at = kept.length;
        pages.push(route);
      } else kept.push(route.routes ? { ...route, routes: walk(route.routes) } : route);
    }
    if (at >= 0) {
      lists++;
      kept.splice(at, 0, { path: STAND_IN, exact: true, sidebar: options.sidebar, component: STAND_IN });
    }
    return kept;
  };
  const main = walk(routes);
  if (!pages.length) fail(`no route under ${options.routePrefix} with the sidebar "${options.sidebar}"`);
  if (lists > 1) fail(`the API pages are in ${lists} route lists, not one`);
  return {
    main,
    pages,
    paths: pages.map((page) => page.path),
    keys: pages.map((page) => page.component[CREATED].join("-")),
  };
}

/**
 * The paths under `prefix` as an expression: grouped by folder, so the
 * browser bundle does not repeat the prefix and folder of every API page.
 */
function pathsCode(paths, prefix) {
  const folders = {};
  for (const path of paths) {
    if (!path.startsWith(prefix)) fail(`${path} is not under ${prefix}`);
    const rest = path.slice(prefix.length);
    const cut = rest.lastIndexOf("/") + 1;
    const folder = rest.slice(0, cut);
    folders[folder] = [...(folders[folder] ?? []), rest.slice(cut)];
  }
  return `Object.entries(${JSON.stringify(folders)}).flatMap(([folder, names]) => names.map((name) => ${JSON.stringify(prefix)} + folder + name))`;
}

/**
 * Writes a route table back as code: the components as `ComponentCreator`
 * calls, the stand-in's path and component as the given expressions.
 */
function routesCode(routes, standIn = {}) {
  const value = (v) => {
    if (v === STAND_IN) return standIn.component;
    if (v?.path === STAND_IN) return `{"path": ${standIn.path}, ${entries({ ...v, path: undefined })}}`;
    if (v?.[CREATED]) return `ComponentCreator(${v[CREATED].map((s) => JSON.stringify(s)).join(", ")})`;
    if (Array.isArray(v) && v.some((r) => r && typeof r === "object")) return `[${v.map(value).join(",\n")}]`;
    if (v && typeof v === "object" && !Array.isArray(v)) return `{${entries(v)}}`;
    return JSON.stringify(v);
  };
  const entries = (object) =>
    Object.entries(object)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}: ${value(x)}`)
      .join(", ");
  return value(routes);
}

// ------------------------------------------------- registry and chunk names

const REGISTRY_LINE = /^\s*"([\w-]+)": \[\(\) => import\(.*\],?$/;

/** Registry lines by chunk name, and the text around them. */
function readRegistry(source) {
  const text = source.trim();
  const head = "export default {";
  if (!text.startsWith(head) || !text.endsWith("};")) fail("registry.js is not one `export default { … };`");
  const entries = new Map();
  for (const line of text.slice(head.length, -2).split("\n")) {
    if (!line.trim()) continue;
    const m = REGISTRY_LINE.exec(line);
    if (!m) fail(`registry.js has a line this plugin cannot read: ${line}`);
    entries.set(m[1], line.replace(/,\s*$/, ""));
  }
  if (!entries.size) fail("registry.js lists no chunk");
  return entries;
}

/** Chunk names in a route's entry of the chunk table (nested objects included). */
function chunkNamesOf(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (value && typeof value === "object") for (const v of Object.values(value)) chunkNamesOf(v, out);
  return out;
}

/**
 * Splits the route chunk table and the registry: the API pages' entries,
 * and the chunks only they use, go to the API part.
 */
function splitChunks(chunkNames, registry, keys) {
  const api = new Set(keys);
  for (const key of keys) if (!(key in chunkNames)) fail(`the route chunk table has no entry ${key}`);
  const mainNames = {};
  const apiNames = {};
  for (const [key, names] of Object.entries(chunkNames)) (api.has(key) ? apiNames : mainNames)[key] = names;
  const stillUsed = new Set(Object.values(mainNames).flatMap((names) => chunkNamesOf(names)));
  const apiOnly = new Set(
    Object.values(apiNames)
      .flatMap((names) => chunkNamesOf(names))
      .filter((name) => !stillUsed.has(name))
  );
  const mainRegistry = new Map();
  const apiRegistry = new Map();
  for (const [name, line] of registry) (apiOnly.has(name) ? apiRegistry : mainRegistry).set(name, line);
  return { mainNames, apiNames, mainRegistry, apiRegistry };
}

const registryCode = (entries) => `{\n${[...entries.values()].join(",\n")}\n}`;

// ----------------------------------------- the docs plugin's data and props

/** Splits a version object into what every page gets and what API pages add. */
function splitVersion(props, { sidebar, docPrefix }) {
  const version = props?.version;
  if (!version?.docsSidebars || !version.docs || typeof version.docs !== "object")
    fail("the docs version object no longer has docsSidebars and docs");
  const { [sidebar]: apiSidebar, ...docsSidebars } = version.docsSidebars;
  const docs = {};
  const apiDocs = {};
  for (const [id, doc] of Object.entries(version.docs)) (id.startsWith(docPrefix) ? apiDocs : docs)[id] = doc;
  return {
    trimmed: { ...props, version: { ...version, docsSidebars, docs } },
    extras: {
      pluginId: version.pluginId,
      version: version.version,
      docsSidebars: apiSidebar ? { [sidebar]: apiSidebar } : {},
      docs: apiDocs,
    },
  };
}

/** Takes the API docs out of the docs plugin's global data (the list the navbar matches the address against). */
function splitGlobalData(globalData, { docPrefix }) {
  const instances = globalData?.[DOCS_PLUGIN];
  if (!instances || typeof instances !== "object") fail("the global data has no docs plugin");
  const trimmed = { ...globalData, [DOCS_PLUGIN]: {} };
  const docs = [];
  for (const [pluginId, data] of Object.entries(instances)) {
    if (!Array.isArray(data?.versions)) fail(`the docs plugin's global data (${pluginId}) has no versions`);
    trimmed[DOCS_PLUGIN][pluginId] = {
      ...data,
      versions: data.versions.map((version) => {
        if (!Array.isArray(version.docs)) fail(`the global data of docs version ${version.name} has no docs`);
        const api = version.docs.filter((doc) => doc.id.startsWith(docPrefix));
        if (api.length) docs.push({ pluginId, version: version.name, docs: api });
        return { ...version, docs: version.docs.filter((doc) => !doc.id.startsWith(docPrefix)) };
      }),
    };
  }
  return { trimmed, docs };
}

// ------------------------------------------------------------- the modules

/** The main route table: the API pages' stand-in loads their part when one is visited. */
function mainRoutesModule(routes, options, standInModule) {
  const { main, paths } = splitRoutes(routes, options);
  return [
    "import ComponentCreator from '@docusaurus/ComponentCreator';",
    `import apiPages from ${JSON.stringify(standInModule)};`,
    "",
    `const apiPaths = ${pathsCode(paths, options.routePrefix)};`,
    `const ApiPages = apiPages(apiPaths, "${API_CHUNK}", () => import(/* webpackChunkName: "${API_CHUNK}" */ "./routes.js?${API_QUERY}"));`,
    "",
    `export default ${routesCode(main, { path: "apiPaths", component: "ApiPages" })};`,
    "",
  ].join("\n");
}

/**
 * The API part: puts the API pages' registry entries, chunk table entries,
 * global data and version data back where Docusaurus and the theme look for
 * them (./extras.ts), then exports the API pages' routes.
 */
function apiPartModule({ routes, chunkNames, registry, globalData, versionProps }, options, extrasModule) {
  const { pages, keys } = splitRoutes(routes, options);
  const { apiNames, apiRegistry } = splitChunks(chunkNames, registry, keys);
  const { docs } = splitGlobalData(globalData, options);
  const versions = versionProps.map((props) => splitVersion(props, options).extras);
  const part = `{\n  registry: ${registryCode(apiRegistry)},\n  routesChunkNames: ${JSON.stringify(apiNames)},\n  globalDocs: ${JSON.stringify(docs)},\n  versions: ${JSON.stringify(versions)}\n}`;
  return [
    "import ComponentCreator from '@docusaurus/ComponentCreator';",
    "import registry from '@generated/registry';",
    "import routesChunkNames from '@generated/routesChunkNames';",
    "import globalData from '@generated/globalData';",
    `import { addApiPart } from ${JSON.stringify(extrasModule)};`,
    "",
    `addApiPart({ registry, routesChunkNames, globalData }, ${part});`,
    "",
    `export default ${routesCode(pages)};`,
    "",
  ].join("\n");
}

/** The main registry: the chunks only API pages use are left out. */
function mainRegistryModule(source, routes, chunkNames, options) {
  const { keys } = splitRoutes(routes, options);
  const { mainRegistry } = splitChunks(chunkNames, readRegistry(source), keys);
  return `export default ${registryCode(mainRegistry)};\n`;
}

/** The main route chunk table: the API pages' entries are left out. */
function mainChunkNames(chunkNames, routes, options) {
  const { keys } = splitRoutes(routes, options);
  return splitChunks(chunkNames, new Map(), keys).mainNames;
}

/** The version objects the registry loads (one per docs version), by request. */
function versionPropsRequests(registrySource) {
  const requests = [
    ...registrySource.matchAll(/"(@generated\/docusaurus-plugin-content-docs\/[^/"]+\/p\/[^"]+\.json)"\), "/g),
  ].map((m) => m[1]);
  if (!requests.length) fail("the registry no longer lists the docs version objects the way this plugin expects");
  return [...new Set(requests)];
}

module.exports = {
  VERSION_PROPS_RE,
  REGISTRY_RE,
  ROUTES_CHUNK_NAMES_RE,
  ROUTES_RE,
  GLOBAL_DATA_RE,
  API_QUERY,
  API_CHUNK,
  readRoutes,
  readRegistry,
  routesCode,
  splitRoutes,
  splitChunks,
  splitVersion,
  splitGlobalData,
  mainRoutesModule,
  apiPartModule,
  mainRegistryModule,
  mainChunkNames,
  versionPropsRequests,
};
