// The loader of ./index.ts: the generated site config, as the browser gets it.
const { browserConfigModule } = require("./transform.cjs");

module.exports = function leanSiteConfigLoader(source) {
  return browserConfigModule(source);
};
