// The loader of ./index.ts: one function for the four generated files it
// edits in the browser bundle, told apart by their path and query.
const {
  VERSION_PROPS_RE,
  REGISTRY_RE,
  ROUTES_CHUNK_NAMES_RE,
  split,
  addToRegistry,
  addToRoutes,
} = require("./transform.cjs");

module.exports = function apiSidebarApartLoader(source) {
  const options = this.getOptions();
  const path = this.resourcePath;
  if (VERSION_PROPS_RE.test(path)) {
    const { trimmed, extras } = split(JSON.parse(source), options);
    if (!/api-extras/.test(this.resourceQuery)) return JSON.stringify(trimmed);
    const store = JSON.stringify(require.resolve("./extras.ts"));
    const { pluginId, version } = trimmed.version;
    return `import { registerExtras } from ${store};\nregisterExtras(${JSON.stringify(pluginId)}, ${JSON.stringify(version)}, ${JSON.stringify(extras)});\nexport default {};\n`;
  }
  if (REGISTRY_RE.test(path)) return addToRegistry(source);
  if (ROUTES_CHUNK_NAMES_RE.test(path)) return JSON.stringify(addToRoutes(JSON.parse(source), options));
  throw new Error(`api-sidebar-apart: no rule for ${path}`);
};
