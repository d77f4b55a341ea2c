// The loader of ./index.ts: the generated site config, as the browser gets it.
const { browserConfigModule } = require("./transform.cjs");

module.exports = function leanSiteConfigLoader(source) {
  // The bundler's cache keeps a loader's output until its inputs change;
  // the edit's code is one of them.
  this.addDependency(require.resolve("./transform.cjs"));
  return browserConfigModule(source);
};
