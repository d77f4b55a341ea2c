// The edit of ./index.ts, as pure functions of the generated file's text, so
// scripts/plugins.test.mjs can run them on what Docusaurus generates.

/** The site config module Docusaurus generates for both bundles. */
const CONFIG_MODULE_RE = /[\\/]\.docusaurus[\\/]docusaurus\.config\.mjs$/;

/**
 * The fields the browser reads, kept as they are: `future` only keeps the
 * one flag read there (see DROPPED). Found by scripts/site-config-reads.mjs
 * in the client code of Docusaurus, of the search plugin and of src/.
 */
const BROWSER_READS = [
  "title", // the page titles, the logo's alt text, the landing page
  "titleDelimiter", // the page titles
  "tagline", // the landing page
  "favicon", // the head's icon link
  "noIndex", // the robots meta tag
  "url", // canonical and social URLs, the locale dropdown
  "baseUrl", // every link, the search bar, the base URL banner
  "trailingSlash", // every link, canonical URLs, the locale dropdown
  "baseUrlIssueBanner", // the base URL banner
  "organizationName", // the crash screen's issue link (src/theme/ErrorPageContent)
  "projectName", // the same
  "future.experimental_router", // the router and every link
  "themeConfig", // navbar, footer, colour mode, code blocks, metadata…
  // Read by nothing today, but it is Docusaurus' documented way of handing
  // site data to browser code; it weighs nothing when empty.
  "customFields",
];

/**
 * The fields only the server reads (Node-side plugins, the HTML template,
 * the build), left out of the browser's copy.
 */
const DROPPED = [
  "ssrTemplate", // the server's HTML template
  "plugins", // plugin, theme and preset options: read by the plugins on the server
  "themes",
  "presets",
  "clientModules", // already turned into the generated client-modules.js
  "markdown", // the MDX compiler's options
  "i18n", // the browser reads @generated/i18n (useDocusaurusContext().i18n)
  "staticDirectories", // the build copies them
  "headTags", // written into the HTML by the server
  "scripts",
  "stylesheets",
  "onBrokenLinks", // build checks
  "onBrokenAnchors",
  "onBrokenMarkdownLinks",
  "onDuplicateRoutes",
  "webpack", // bundler options
  "deploymentBranch", // `docusaurus deploy`
  "githubHost",
  "githubPort",
  "future.v4", // build flags
  "future.experimental_faster",
  "future.experimental_storage", // the browser reads @generated/site-storage
];

const fail = (why) => {
  throw new Error(
    `lean-site-config: ${why}; Docusaurus changed how it writes .docusaurus/docusaurus.config.mjs, see src/plugins/lean-site-config`
  );
};

/** The config object of the generated module (`export default {…JSON…};`). */
function parseConfigModule(source) {
  const match = /^\s*(?:\/\*[\s\S]*?\*\/\s*)?export default (\{[\s\S]*\});?\s*$/.exec(source);
  if (!match) fail("the module is no longer a comment and `export default {…};`");
  let config;
  try {
    config = JSON.parse(match[1]);
  } catch (error) {
    fail(`its default export is no longer JSON (${error.message})`);
  }
  if (typeof config?.baseUrl !== "string" || typeof config.themeConfig !== "object" || !config.future)
    fail("its default export has no baseUrl, themeConfig or future");
  return config;
}

/** The config without the dropped fields (paths "a" or "a.b"). */
function trimConfig(config, dropped = DROPPED) {
  const out = { ...config };
  for (const path of dropped) {
    const [key, sub] = path.split(".");
    if (sub === undefined) delete out[key];
    else if (out[key] && typeof out[key] === "object") {
      out[key] = { ...out[key] };
      delete out[key][sub];
    }
  }
  return out;
}

/** The browser's copy of the generated module. */
function browserConfigModule(source) {
  return `// The browser's copy of the site config: src/plugins/lean-site-config leaves out what only the server reads.\nexport default ${JSON.stringify(trimConfig(parseConfigModule(source)))};\n`;
}

module.exports = { CONFIG_MODULE_RE, BROWSER_READS, DROPPED, parseConfigModule, trimConfig, browserConfigModule };
