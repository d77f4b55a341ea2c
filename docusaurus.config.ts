/**
 * Docusaurus configuration of the Act documentation site.
 *
 * Read it next to `../shared/spec/site-spec.txt` ("spec §n" below) and
 * `site.md`: every constant of spec §9 and every build rule of spec §5 is set
 * here explicitly — including the ones that equal Docusaurus' defaults — so
 * the config itself shows the spec. Constants the framework hard-codes (no
 * option exists) are listed in comments where they would otherwise be set.
 */
import { copyFileSync, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "@docusaurus/types";
import type * as Preset from "@docusaurus/preset-classic";
import type { PluginOptions as TypedocPluginOptions } from "docusaurus-plugin-typedoc";
import { darkCodeTheme, lightCodeTheme } from "./src/prism-themes";
import llmsTxt from "./src/plugins/llms-txt/index";
import searchEscape from "./src/plugins/search-escape";

const siteDir = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------
// Where the site lives. The Pages workflow sets GITHUB_REPOSITORY
// ("owner/repo"); local builds use the one documented default below.
// The base path is NOT derived from the repository name: the spec fixes it.
// ---------------------------------------------------------------------------
const DEFAULT_REPOSITORY = "act-root/act-root";
const [organizationName, projectName] = (
  process.env.GITHUB_REPOSITORY || DEFAULT_REPOSITORY
).split("/") as [string, string];
const repositoryUrl = `https://github.com/${organizationName}/${projectName}`;

// ---------------------------------------------------------------------------
// The API reference (issue 4, item 2). Both packages go into ONE TypeDoc run
// so the module folders come out as `act/src` and `act-pg/src`, which are the
// spec §2 routes. act-pg is only passed once its entry point exists.
// ---------------------------------------------------------------------------
const apiEntryPoints = [
  "packages/act/src/index.ts",
  "packages/act-pg/src/index.ts",
].filter((entry) => existsSync(resolve(siteDir, entry)));

// `npm start` sets ACT_DOCS_WATCH=1 so TypeDoc regenerates pages on edit.
const watchApi = process.env.ACT_DOCS_WATCH === "1";

const typedoc: TypedocPluginOptions & Record<string, unknown> = {
  entryPoints: apiEntryPoints,
  tsconfig: "./tsconfig.typedoc.json",
  out: "docs/api",
  // Module names are relative to `packages/` and a module is created even for
  // a single entry point, so the routes don't move while act-pg is missing.
  basePath: "packages",
  alwaysCreateEntryPointModule: true,
  name: "Act API reference",
  readme: "none",
  watch: watchApi,
  // Run the compiler's checks: `tsc` in `npm test` is not the only guard.
  skipErrorChecking: false,
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  disableSources: false,
  gitRevision: "main",
  sourceLinkTemplate: `${repositoryUrl}/blob/{gitRevision}/{path}#L{line}`,
  // Readable pages: tables, signatures as code, TSDoc examples stay code.
  parametersFormat: "table",
  interfacePropertiesFormat: "table",
  classPropertiesFormat: "table",
  typeDeclarationFormat: "table",
  propertyMembersFormat: "table",
  enumMembersFormat: "table",
  indexFormat: "table",
  useCodeBlocks: true,
  expandObjects: false,
  expandParameters: false,
  // `<T>` in prose must not be read as JSX (see also markdown.format below).
  sanitizeComments: true,
  // Validation is an error: an undocumented export, an exported API that
  // references an unexported type, or a broken {@link} fails the build
  // (scripts/typedoc/strict.mjs makes TypeDoc's findings fatal inside
  // Docusaurus, which otherwise only logs them).
  validation: { notExported: true, notDocumented: true, invalidLink: true },
  treatValidationWarningsAsErrors: true,
  packagesRequiringDocumentation: ["@act-root/act", "@act-root/act-pg"],
  plugin: ["./scripts/typedoc/strict.mjs", "./scripts/typedoc/front-matter.mjs"],
  // One sidebar entry per package ("act/src", "act-pg/src"), not folders
  // "act" › "src"; sidebars.ts gives them their package names.
  navigation: { includeFolders: false, includeGroups: true, includeCategories: false },
  sidebar: {
    autoConfiguration: true,
    typescript: false,
    pretty: true,
    deprecatedItemClassName: "typedoc-sidebar-item-deprecated",
  },
};

const config: Config = {
  // -------------------------------------------------------------------------
  // spec §1 — identity
  // -------------------------------------------------------------------------
  title: "Act",
  tagline: "Fluent Event Sourcing for TypeScript",
  favicon: "img/favicon.svg",

  // -------------------------------------------------------------------------
  // spec §9 — "Base path /act-root/"; site URL from GITHUB_REPOSITORY.
  // -------------------------------------------------------------------------
  url: `https://${organizationName}.github.io`,
  baseUrl: "/act-root/",
  organizationName,
  projectName,

  // spec §9 — "Trailing-slash behaviour: unset." (explicitly undefined)
  trailingSlash: undefined,

  // spec §9 — "Title delimiter is '|'."
  titleDelimiter: "|",

  // spec §8 — "Wrong configured base path: banner 'Your Docusaurus site did
  // not load properly'".
  baseUrlIssueBanner: true,

  // -------------------------------------------------------------------------
  // spec §5 — build-time rules.
  // -------------------------------------------------------------------------
  onBrokenLinks: "warn", // "Broken links only warn." (scripts/site.test.mjs holds the line)
  onBrokenAnchors: "warn", // "Broken anchors only warn." (idem)
  markdown: {
    hooks: {
      onBrokenMarkdownImages: "throw", // "Broken markdown images throw an error."
      onBrokenMarkdownLinks: "warn", // same policy as onBrokenLinks
    },
    // Hand-written pages are .mdx; TypeDoc's generated .md pages are parsed
    // as CommonMark, so generics like `Promise<T>` cannot break MDX.
    format: "detect",
    // Diagrams in the guides; the Mermaid library only loads on pages with one.
    mermaid: true,
  },

  // -------------------------------------------------------------------------
  // spec §1, §3, §9 — "The site language is en, which is the only locale."
  // -------------------------------------------------------------------------
  i18n: {
    defaultLocale: "en",
    locales: ["en"],
    localeConfigs: {
      en: {
        label: "English",
        direction: "ltr",
        htmlLang: "en",
        calendar: "gregory",
      },
    },
  },

  future: {
    // spec §7 — "Browser local storage holds the docs version preference and
    // the colour-mode setting."
    experimental_storage: { type: "localStorage", namespace: false },
    // Rspack/SWC/LightningCSS: builds here in a fraction of the webpack time.
    experimental_faster: true,
    // Required by experimental_faster's SSG worker threads; cascade layers
    // stay off (they would reorder src/css/custom.css).
    v4: { removeLegacyPostBuildHeadAttribute: true, useCssCascadeLayers: false },
  },

  // Framework constants with no configuration option (listed so a reader of
  // this file finds every spec §9 item):
  // - spec §9 "Desktop breakpoint 996px": the classic theme's fixed
  //   breakpoint; src/css/custom.css uses the same width.
  // - spec §4/§9 "Loading indicator and loader appear after a 200ms delay":
  //   the client's progress bar and the route loader delay.
  // - spec §9 "Route regex cache limit 10000", "Scheduler frame time about
  //   5ms": router and React internals.
  // - spec §7 "Prefetch is skipped on 2g or data-saver connections".

  presets: [
    [
      "classic",
      {
        docs: {
          path: "docs",
          routeBasePath: "docs",
          sidebarPath: "./sidebars.ts",
          // spec §3 — "One docs version, named current, labelled Next, whose
          // main doc is intro" (intro is the first item of the Docs sidebar).
          lastVersion: "current",
          onlyIncludeVersions: ["current"],
          versions: { current: { label: "Next" } },
          // No "edit this page" for the generated API pages: their Markdown
          // is not in the repository.
          editUrl: ({ docPath }) =>
            docPath.startsWith("api/")
              ? undefined
              : `${repositoryUrl}/edit/main/docs/${docPath}`,
          showLastUpdateTime: false,
        },
        blog: false,
        pages: {},
        // search.css: contrast of the search bar's shortcut hint (issue 6).
        theme: { customCss: ["./src/css/custom.css", "./src/css/search.css"] },
        sitemap: { changefreq: "weekly", priority: 0.5 },
      } satisfies Preset.Options,
    ],
  ],

  // spec §2 — ".html and /index.html are normalised to the plain path": the
  // address bar is fixed before hydration (see the module), and every page
  // is also written as <route>.html (plugin "act-html-route-files"), so a
  // static host like GitHub Pages serves /docs/intro.html as the intro page.
  clientModules: ["./src/client/normalise-html-paths.ts"],

  themes: [
    "@docusaurus/theme-mermaid",
    // Offline search (issue 6) in the navbar slot. The index is built in
    // postBuild (production builds only) and fetched when the reader focuses
    // or hovers the search box, never on page load.
    [
      "@easyops-cn/docusaurus-search-local",
      {
        hashed: "filename",
        indexDocs: true,
        indexBlog: false,
        indexPages: false,
        docsRouteBasePath: "docs",
        language: ["en"],
        searchBarShortcut: true,
        searchBarShortcutKeymap: "mod+k",
        searchResultLimits: 8,
        // Each hit names its page ("State management › Snapshots").
        explicitSearchResultPath: true,
        // Sidebars and the TOC repeat headings; index the article only.
        ignoreCssSelectors: [".theme-doc-toc-mobile", ".pagination-nav"],
      },
    ],
  ],

  plugins: [
    ["docusaurus-plugin-typedoc", typedoc],
    // Search suggestions show titles and headings as text, never as HTML.
    searchEscape,
    // llms.txt, llms-full.txt and a Markdown twin of each guide (issue 6).
    [llmsTxt, { apiPrefix: "api/" }],
    // The live calculator bundles packages/calculator from its TypeScript
    // sources, whose imports say "./x.js" for "./x.ts" (NodeNext style).
    () => ({
      name: "act-calculator-sources",
      configureWebpack: () => ({
        module: {
          rules: [
            {
              include: [resolve(siteDir, "packages/calculator/src")],
              resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
            },
          ],
        },
      }),
    }),
    // The root package.json says "type": "module" (for the packages), and
    // Docusaurus' bundles assume CommonJS around them:
    // - the generated .docusaurus/*.js would be parsed as strict ESM, and
    //   their `require.resolveWeak` calls (route code splitting) would reach
    //   Node's require: parse them as "auto" modules, as without the flag;
    // - the static renderer require()s the server chunks from build/__server,
    //   where a ".js" file now means ESM: name them ".cjs".
    () => ({
      name: "act-commonjs-bundles-under-type-module",
      configureWebpack: (_config, isServer) => ({
        module: {
          rules: [{ test: /\.js$/, include: [resolve(siteDir, ".docusaurus")], type: "javascript/auto" }],
        },
        ...(isServer && { output: { chunkFilename: "assets/js/[name].[contenthash:8].cjs" } }),
      }),
    }),
    // spec §8 — a page whose chunks fail on its first load shows the error
    // text with Retry (src/client/preload-once.js, src/theme/Loading).
    () => ({
      name: "act-chunk-failure-screen",
      configureWebpack: (_config, isServer, { currentBundler }) =>
        isServer
          ? {}
          : {
              resolve: {
                alias: {
                  "act-original-preload$": resolve(siteDir, "node_modules/@docusaurus/core/lib/client/preload.js"),
                },
              },
              plugins: [
                new currentBundler.instance.NormalModuleReplacementPlugin(/^\.\/preload$/, (request: { context: string; request: string }) => {
                  if (/@docusaurus[\\/]core[\\/]lib[\\/]client$/.test(request.context))
                    request.request = resolve(siteDir, "src/client/preload-once.js");
                }),
              ],
            },
    }),
    // spec §2 — see clientModules: <route>/index.html is also <route>.html.
    () => ({
      name: "act-html-route-files",
      async postBuild({ outDir, routesPaths, baseUrl }) {
        for (const route of routesPaths) {
          if (route.endsWith("/") || route.endsWith(".html")) continue;
          const path = route.slice(baseUrl.length);
          const page = resolve(outDir, path, "index.html");
          const flat = resolve(outDir, `${path}.html`);
          if (existsSync(page) && !existsSync(flat)) copyFileSync(page, flat);
        }
      },
    }),
  ],

  themeConfig: {
    image: "img/social-card.png",
    metadata: [
      { name: "description", content: "Act — Fluent Event Sourcing for TypeScript." },
      // Social cards (issue 6): the theme adds og:image, twitter:image,
      // twitter:card, og:url, og:title, og:description and the canonical link.
      { property: "og:site_name", content: "Act" },
      { property: "og:type", content: "website" },
      { property: "og:image:width", content: "1200" },
      { property: "og:image:height", content: "630" },
      { property: "og:image:alt", content: "Act — Fluent Event Sourcing for TypeScript" },
      { name: "twitter:image:alt", content: "Act — Fluent Event Sourcing for TypeScript" },
    ],

    // spec §9 — "Colour mode default light, with the switch enabled."
    // spec §4 — system preference respected: the toggle cycles light → dark →
    // system.
    colorMode: {
      defaultMode: "light",
      disableSwitch: false,
      respectPrefersColorScheme: true,
    },

    // spec §9 — "Table of contents shows heading levels 2 to 3."
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },

    docs: {
      // spec §9 — "Docs version persistence uses local storage."
      versionPersistence: "localStorage",
      // spec §9 — "The docs sidebar is not hideable and its categories do
      // not auto-collapse."
      sidebar: { hideable: false, autoCollapseCategories: false },
    },

    // spec §2 / §4 — "An optional announcement bar", dismissible and the
    // dismissal remembered (by the theme, in local storage, per id).
    announcementBar: {
      id: "act-docs-preview",
      content:
        'These are the docs for the next release of Act. New here? Start with the <a href="/act-root/docs/intro">introduction</a>.',
      isCloseable: true,
    },

    // spec §2 — top navbar (mobile menu below 996px), colour-mode toggle,
    // search slot, English-only language dropdown, source-repository link.
    navbar: {
      title: "Act",
      // spec §4 — "When hide-on-scroll is on…": off, the navbar stays put.
      hideOnScroll: false,
      logo: {
        alt: "Act logo",
        src: "img/logo.svg",
        srcDark: "img/logo-dark.svg",
        width: 32,
        height: 32,
      },
      items: [
        { type: "docSidebar", sidebarId: "docs", position: "left", label: "Docs" },
        { type: "docSidebar", sidebarId: "api", position: "left", label: "API" },
        { type: "localeDropdown", position: "right" },
        // The search slot: the local search plugin (issue 6) renders here.
        { type: "search", position: "right" },
        {
          href: repositoryUrl,
          position: "right",
          label: "GitHub",
          "aria-label": "Source repository on GitHub",
        },
      ],
    },

    // spec §1, §2 — footer: Introduction link, repository link, copyright.
    footer: {
      style: "dark",
      links: [
        {
          title: "Learn",
          items: [
            { label: "Introduction", to: "/docs/intro" },
            { label: "API reference", to: "/docs/api/" },
          ],
        },
        {
          title: "Source",
          items: [{ label: "Repository", href: repositoryUrl }],
        },
      ],
      copyright: "Copyright © 2025 Act. Built with Docusaurus.",
    },

    prism: {
      // Both keep every token at WCAG AA, highlighted lines included.
      theme: lightCodeTheme,
      darkTheme: darkCodeTheme,
      additionalLanguages: ["bash", "json", "sql"],
    },
  } satisfies Preset.ThemeConfig,
};

export default config;
