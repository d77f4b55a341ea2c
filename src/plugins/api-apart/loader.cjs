// The loader of ./index.ts: one function for the generated files it edits
// in the browser bundle, told apart by their path and query. The edits of
// one file depend on others (which chunks only API pages use, say), so it
// reads those from the generated folder and tells the bundler it did.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const t = require("./transform.cjs");

const STAND_IN = require.resolve("./pages.tsx");
const EXTRAS = require.resolve("./extras.ts");

module.exports = function apiApartLoader(source) {
  const options = this.getOptions();
  const path = this.resourcePath;
  // The bundler's cache keeps a loader's output until its inputs change;
  // the edits' code is one of them.
  this.addDependency(require.resolve("./transform.cjs"));
  const read = (name) => {
    const file = join(options.generatedFilesDir, name);
    this.addDependency(file);
    return readFileSync(file, "utf8");
  };
  const routes = () => t.readRoutes(read("routes.js"));
  const chunkNames = () => JSON.parse(read("routesChunkNames.json"));

  if (t.ROUTES_RE.test(path)) {
    if (!this.resourceQuery.includes(t.API_QUERY)) return t.mainRoutesModule(t.readRoutes(source), options, STAND_IN);
    const registry = read("registry.js");
    const versionProps = t
      .versionPropsRequests(registry)
      .map((request) => JSON.parse(read(request.replace(/^@generated\//, ""))));
    return t.apiPartModule(
      {
        routes: t.readRoutes(source),
        chunkNames: chunkNames(),
        registry: t.readRegistry(registry),
        globalData: JSON.parse(read("globalData.json")),
        versionProps,
      },
      options,
      EXTRAS
    );
  }
  if (t.REGISTRY_RE.test(path)) return t.mainRegistryModule(source, routes(), chunkNames(), options);
  if (t.ROUTES_CHUNK_NAMES_RE.test(path))
    return JSON.stringify(t.mainChunkNames(JSON.parse(source), routes(), options));
  if (t.GLOBAL_DATA_RE.test(path)) return JSON.stringify(t.splitGlobalData(JSON.parse(source), options).trimmed);
  if (t.VERSION_PROPS_RE.test(path)) return JSON.stringify(t.splitVersion(JSON.parse(source), options).trimmed);
  throw new Error(`api-apart: no rule for ${path}`);
};
