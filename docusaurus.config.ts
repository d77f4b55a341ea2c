/**
 * Docusaurus configuration of the Act documentation site.
 *
 * The site's fixed settings (base path, locale, breakpoint, colour mode, TOC
 * depth, title delimiter, build rules) are all set here explicitly, including
 * the ones that equal Docusaurus' defaults, so that reading this file shows
 * every promise the site makes (the tests in scripts/site.test.mjs and e2e/ hold it to them).
 * Settings the framework hard-codes (no option exists) are listed in comments
 * where they would otherwise be set.
 *
 * Data lives here; code does not: the API reference options are in
 * scripts/typedoc/options.ts, and each local plugin is a folder of
 * src/plugins/ whose index file says what it is for.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "@docusaurus/types";
import type * as Preset from "@docusaurus/preset-classic";
import type { Options as DocsOptions } from "@docusaurus/plugin-content-docs";
import { repository } from "./scripts/repository.mjs";
import { siteVersions, versionOptions } from "./scripts/docs-versions.mjs";
import { typedocOptions } from "./scripts/typedoc/options";
import { codeTheme } from "./src/prism-themes";
import remarkDiagrams from "./src/plugins/diagrams/index";
import { deferredStartTemplate } from "./src/plugins/deferred-start/index";
import bundleStats from "./src/plugins/bundle-stats/index";
import calculatorSources from "./src/plugins/calculator-sources/index";
import commonjsBundles from "./src/plugins/commonjs-bundles/index";
import compileHints from "./src/plugins/compile-hints/index";
import htmlRouteFiles from "./src/plugins/html-route-files/index";
import leanTslib from "./src/plugins/lean-tslib/index";
import llmsTxt from "./src/plugins/llms-txt/index";
import prismWithCodeBlocks from "./src/plugins/prism-with-code-blocks/index";
import remarkVersionedLinks from "./src/plugins/versioned-links/index";
import searchEscape from "./src/plugins/search-escape/index";

const siteDir = dirname(fileURLToPath(import.meta.url));
/** The id of the docs instance that holds the generated API reference. */
const API_DOCS = "api";

// ---------------------------------------------------------------------------
// Where the site lives. The Pages workflow sets GITHUB_REPOSITORY
// ("owner/repo"); local builds use the one documented default
// (scripts/repository.mjs, README.md). The base path is not derived from the
// repository name: it is fixed.
// ---------------------------------------------------------------------------
const { owner: organizationName, name: projectName, url: repositoryUrl } = repository();

// ---------------------------------------------------------------------------
// Docs versions. The guides and the API reference are cut together, per
// release, by scripts/cut-docs-version.mjs (versions.json,
// api_versions.json). With no release cut yet — today — the current docs are
// the only version, labelled Next, and their main doc is the intro; once one
// is, the newest release is served under /docs/ and Next under /docs/next/.
// ---------------------------------------------------------------------------
const released = siteVersions(siteDir, API_DOCS);
// Links between the guides and the API stay inside the page's version.
const versionedLinks = [remarkVersionedLinks, { released: released.guides }];

const config: Config = {
  title: "Act",
  tagline: "Fluent Event Sourcing for TypeScript",
  favicon: "img/favicon.svg",

  // The site is served under /act-root/ whatever the repository is called;
  // the site URL and the organisation come from GITHUB_REPOSITORY.
  url: `https://${organizationName}.github.io`,
  baseUrl: "/act-root/",
  organizationName,
  projectName,

  // Left unset on purpose: GitHub Pages then serves both /x and /x/.
  trailingSlash: undefined,
  // Page titles read "Page | Act".
  titleDelimiter: "|",
  // A site deployed under the wrong base path says so in a banner ("Your
  // Docusaurus site did not load properly") instead of rendering unstyled.
  baseUrlIssueBanner: true,

  // Build rules. Broken links and anchors only warn, so a generated API page
  // cannot block a release; scripts/site.test.mjs fails on any of them in
  // the build log instead. A broken image always fails the build.
  onBrokenLinks: "warn",
  onBrokenAnchors: "warn",
  markdown: {
    hooks: {
      onBrokenMarkdownImages: "throw",
      onBrokenMarkdownLinks: "warn", // the same policy as onBrokenLinks
    },
    // Hand-written pages are .mdx; TypeDoc's generated .md pages are parsed
    // as CommonMark, so generics like `Promise<T>` cannot break MDX.
    format: "detect",
    // No Mermaid in the browser: the diagrams of the guides are rendered to
    // inline SVG at build time (src/plugins/diagrams).
    mermaid: false,
  },

  // English only, one locale.
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

  // The colour mode and the docs version preference are kept in local
  // storage under their plain keys (no per-site namespace, which
  // `future.v4.siteStorageNamespacing` would otherwise add).
  storage: { type: "localStorage", namespace: false },

  future: {
    // Rspack/SWC/LightningCSS: builds here in a fraction of the webpack time.
    faster: true,
    // Every Docusaurus 4 flag is on. The browserslist in package.json asks
    // for browsers with cascade layers, so src/css/custom.css (outside any
    // layer) wins over Infima's layered CSS.
    v4: true,
  },

  // Framework constants with no configuration option, listed so a reader of
  // this file finds them:
  // - the desktop breakpoint, 996 px: the classic theme's fixed breakpoint
  //   (src/css/custom.css uses the same width);
  // - the progress bar and the route loader appear after a 200 ms delay;
  // - the router's route-regex cache (10,000 entries) and React's scheduler
  //   frame (about 5 ms);
  // - links are not prefetched on 2g or data-saver connections.

  presets: [
    [
      "classic",
      {
        docs: {
          path: "docs",
          routeBasePath: "docs",
          sidebarPath: "./sidebars.ts",
          // Older builds generated the API reference into docs/api/; a copy
          // left there must not turn into a second set of API routes (the other
          // patterns are the plugin's default exclusions, kept).
          exclude: [
            "api/**",
            "**/_*.{js,jsx,ts,tsx,md,mdx}",
            "**/_*/**",
            "**/*.test.{js,jsx,ts,tsx}",
            "**/__tests__/**",
          ],
          // The current docs, labelled Next, and each cut release (see
          // "Docs versions" above); the main doc is the intro (the first item
          // of the Docs sidebar).
          ...versionOptions(released.guides),
          // A cut release's page is edited in its own folder (versioned_docs/…).
          editUrl: ({ versionDocsDirPath, docPath }) => `${repositoryUrl}/edit/main/${versionDocsDirPath}/${docPath}`,
          showLastUpdateTime: false,
          // ```mermaid blocks become inline SVG figures at build time.
          remarkPlugins: [remarkDiagrams, versionedLinks],
        },
        blog: false,
        pages: {},
        // search.css: contrast of the search bar's shortcut hint.
        theme: { customCss: ["./src/css/custom.css", "./src/css/search.css"] },
        sitemap: { changefreq: "weekly", priority: 0.5 },
      } satisfies Preset.Options,
    ],
  ],

  // /x.html and /x/index.html show as /x: the address bar is fixed before
  // hydration (see the module), and every page is also written as x.html
  // (src/plugins/html-route-files) so a static host serves it.
  // Route prefetches wait for idle time (src/client/idle-prefetch.ts);
  // <html data-live> marks a hydrated page (src/theme/Root). Prism
  // is fetched when the reader first moves to another page, whose code
  // blocks render in the browser (src/client/code-on-navigation.ts). A page
  // whose code fails on its first load shows the error with Retry
  // (src/client/chunk-failure.ts).
  clientModules: [
    "./src/client/normalise-html-paths.ts",
    "./src/client/idle-prefetch.ts",
    "./src/client/code-on-navigation.ts",
    "./src/client/chunk-failure.ts",
  ],

  // Pages load their code after the first paint, not as <script defer> in
  // the head (src/plugins/deferred-start): the HTML is complete without it.
  // Measured alone it is worth 6 Lighthouse mobile points on the intro and
  // an API page; it goes once Docusaurus can defer its scripts itself
  // (https://github.com/facebook/docusaurus/pull/3237, "defer mode").
  ssrTemplate: deferredStartTemplate(),

  themes: [
    // Offline search in the navbar slot. The index is built in postBuild
    // (production builds only) and fetched when the reader focuses or hovers
    // the search box, never on page load.
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
        // Each hit names its page ("State management › Snapshots"); the
        // search-escape plugin below makes that path plain text.
        explicitSearchResultPath: true,
        // Sidebars and the TOC repeat headings; index the article only, and
        // each diagram's text once (its dark copy repeats the light one).
        // The headings of API properties are not indexed as headings: the
        // plugin ranks equal heading hits in route order, so /docs/api/
        // came first and "snapshot" led to a field (Forgotten.snapshots),
        // not to the Snapshots section of State management. A property is
        // still found by its name, in its page's Properties section.
        ignoreCssSelectors: [
          ".theme-doc-toc-mobile",
          ".pagination-nav",
          ".act-diagram__dark",
          ".plugin-id-api article h2#properties ~ h3",
        ],
      },
    ],
  ],

  plugins: [
    [
      "docusaurus-plugin-typedoc",
      typedocOptions({ siteDir, repositoryUrl, watch: process.env.ACT_DOCS_WATCH === "1" }),
    ],
    // The API reference is a docs instance of its own, from the folder
    // TypeDoc writes (docs-api/, not committed), under the same URLs as if it
    // were part of the guides (/docs/api/…). Being its own instance keeps its
    // sidebar and page list out of the data every guide loads; its routes
    // still sit in the main bundle's route table, as every route does.
    // No "edit this page": the Markdown is generated, not in the repository.
    [
      "@docusaurus/plugin-content-docs",
      {
        id: API_DOCS,
        path: "docs-api",
        routeBasePath: "docs/api",
        sidebarPath: "./sidebars-api.ts",
        ...versionOptions(released.api),
        showLastUpdateTime: false,
        remarkPlugins: [versionedLinks],
      } satisfies DocsOptions,
    ],
    searchEscape,
    [llmsTxt, { apiPluginId: API_DOCS }],
    calculatorSources,
    commonjsBundles,
    htmlRouteFiles,
    prismWithCodeBlocks,
    leanTslib,
    compileHints,
    bundleStats,
  ],

  themeConfig: {
    image: "img/social-card.png",
    metadata: [
      { name: "description", content: "Act — Fluent Event Sourcing for TypeScript." },
      // Social cards: the theme adds og:image, twitter:image, twitter:card,
      // og:url, og:title, og:description and the canonical link.
      { property: "og:site_name", content: "Act" },
      { property: "og:type", content: "website" },
      { property: "og:image:width", content: "1200" },
      { property: "og:image:height", content: "630" },
      { property: "og:image:alt", content: "Act — Fluent Event Sourcing for TypeScript" },
      { name: "twitter:image:alt", content: "Act — Fluent Event Sourcing for TypeScript" },
    ],

    // Light by default, with the switch; the reader's system preference is
    // respected, so the toggle cycles light → dark → system.
    colorMode: {
      defaultMode: "light",
      disableSwitch: false,
      respectPrefersColorScheme: true,
    },

    // The table of contents lists h2 and h3.
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },

    docs: {
      // The docs version preference survives a reload.
      versionPersistence: "localStorage",
      // The Docs sidebar stays visible and every category keeps its state.
      sidebar: { hideable: false, autoCollapseCategories: false },
    },

    // An optional announcement bar; the theme remembers its dismissal (in
    // local storage, per id). Once a release is cut it announces the newest
    // one (a new id, so a reader who closed the previous bar sees it).
    announcementBar: released.guides.length
      ? {
          id: `act-release-${released.guides[0]}`,
          content: `Act ${released.guides[0]} is released: what changed and how to upgrade is in the <a href="/act-root/docs/guides/release-notes">release notes</a>.`,
          isCloseable: true,
        }
      : {
          id: "act-docs-preview",
          content:
            'These are the docs for the next release of Act. New here? Start with the <a href="/act-root/docs/intro">introduction</a>.',
          isCloseable: true,
        },

    // Top navbar (a mobile menu below 996 px): Docs and API, the docs
    // version, the English-only language dropdown, the search slot, the
    // colour-mode toggle, the source repository.
    navbar: {
      title: "Act",
      // The navbar stays put while scrolling.
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
        { type: "docSidebar", sidebarId: "api", docsPluginId: API_DOCS, position: "left", label: "API" },
        // The docs version: "Next" alone while no release is cut (the theme
        // then renders a link to the page itself, not a menu), a dropdown of Next
        // and the releases once one is; on an API page it switches the API
        // reference's version (the wrapper in src/theme/NavbarItem). Never
        // highlighted: Docs or API is the active item.
        { type: "docsVersionDropdown", position: "right", dropdownActiveClassDisabled: true },
        { type: "localeDropdown", position: "right" },
        // The search slot, where the local search plugin renders.
        { type: "search", position: "right" },
        {
          href: repositoryUrl,
          position: "right",
          label: "GitHub",
          "aria-label": "Source repository on GitHub",
        },
      ],
    },

    // Footer: the Introduction link, the repository, the copyright line.
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
      // Every token at WCAG AA, highlighted lines included. One theme for
      // both modes (no darkTheme: the theme serves both): its colours are
      // CSS variables set per mode, so a switch never re-renders a block
      // (src/prism-themes.ts).
      theme: codeTheme,
      additionalLanguages: ["bash", "json", "sql"],
    },
  } satisfies Preset.ThemeConfig,
};

export default config;
