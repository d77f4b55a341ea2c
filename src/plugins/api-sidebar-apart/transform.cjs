// The edits of ./index.ts, as pure functions of the generated files' text
// or data, so scripts/plugins.test.mjs can run them on what Docusaurus
// generates.
const VERSION_PROPS_RE = /[\\/]docusaurus-plugin-content-docs[\\/][^\\/]+[\\/]p[\\/][^\\/]+\.json$/;
const REGISTRY_RE = /[\\/]\.docusaurus[\\/]registry\.js$/;
const ROUTES_CHUNK_NAMES_RE = /[\\/]\.docusaurus[\\/]routesChunkNames\.json$/;
/** The chunk name of the extras, and the prop that loads it. */
const EXTRAS_CHUNK = "act-api-extras";
const EXTRAS_PROP = "actApiExtras";

/** Splits a version object into what every page gets and what API pages add. */
function split(props, { sidebar, docPrefix }) {
  const version = props?.version;
  if (!version?.docsSidebars || !version.docs || typeof version.docs !== "object")
    throw new Error("api-sidebar-apart: the docs version object no longer has docsSidebars and docs");
  const { [sidebar]: apiSidebar, ...docsSidebars } = version.docsSidebars;
  const docs = {};
  const apiDocs = {};
  for (const [id, doc] of Object.entries(version.docs)) {
    if (!id.startsWith(docPrefix)) docs[id] = doc;
    else {
      const { description, ...rest } = doc;
      docs[id] = rest;
      apiDocs[id] = doc;
    }
  }
  return {
    trimmed: { ...props, version: { ...version, docsSidebars, docs } },
    extras: { docsSidebars: apiSidebar ? { [sidebar]: apiSidebar } : {}, docs: apiDocs },
  };
}

/** Adds the extras' entry to the registry, next to the version object's own. */
function addToRegistry(source) {
  const entry =
    /\n\s*"[\w-]+": \[\(\) => import\(\/\* webpackChunkName: "[\w-]+" \*\/ "(@generated\/docusaurus-plugin-content-docs\/[^/"]+\/p\/[^"]+\.json)"\), "[^"]+", require\.resolveWeak\("[^"]+"\)\],/.exec(
      source
    );
  if (!entry)
    throw new Error(
      "api-sidebar-apart: the registry no longer lists the docs version object the way this plugin expects"
    );
  const request = `${entry[1]}?api-extras`;
  const line = `\n  "${EXTRAS_CHUNK}": [() => import(/* webpackChunkName: "${EXTRAS_CHUNK}" */ "${request}"), "${request}", require.resolveWeak("${request}")],`;
  return source.slice(0, entry.index) + line + source.slice(entry.index);
}

/** Adds the extras to the chunks of every route under the API path. */
function addToRoutes(chunkNames, { routePrefix }) {
  let added = 0;
  const out = {};
  for (const [key, names] of Object.entries(chunkNames)) {
    const path = key.replace(/-[0-9a-f]{3}$/, "");
    if (path.startsWith(routePrefix) && names?.content) {
      out[key] = { ...names, [EXTRAS_PROP]: EXTRAS_CHUNK };
      added++;
    } else out[key] = names;
  }
  if (!added) throw new Error(`api-sidebar-apart: no route under ${routePrefix} with content in the route chunk table`);
  return out;
}

module.exports = {
  VERSION_PROPS_RE,
  REGISTRY_RE,
  ROUTES_CHUNK_NAMES_RE,
  EXTRAS_CHUNK,
  EXTRAS_PROP,
  split,
  addToRegistry,
  addToRoutes,
};
