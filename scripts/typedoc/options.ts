/**
 * Options of docusaurus-plugin-typedoc, which generates the API reference
 * (docs-api/, not committed) from the packages' TSDoc at build time. The
 * folder is the `api` docs instance of the site config, served under
 * /docs/api/.
 *
 * Both packages go into one TypeDoc run, so the module folders come out as
 * `act/src` and `act-pg/src` — the routes the site promises
 * (/docs/api/act/src/…, /docs/api/act-pg/src/…). Renaming modules (a
 * `@module` tag, another entry-point strategy) would move those routes.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { PluginOptions as TypedocPluginOptions } from "docusaurus-plugin-typedoc";

export type ApiReferenceSettings = {
  /** The repository root (the site folder). */
  siteDir: string;
  /** https://github.com/<owner>/<repo>, for "Defined in" source links. */
  repositoryUrl: string;
  /** Regenerate pages on edit (`npm start` sets ACT_DOCS_WATCH=1). */
  watch: boolean;
};

export function typedocOptions({ siteDir, repositoryUrl, watch }: ApiReferenceSettings) {
  // The other packages are only passed once their entry points exist. The test kit
  // (`@act-root/act/testing`) comes out as the module `act/src/testing`.
  const entryPoints = [
    "packages/act/src/index.ts",
    "packages/act/src/testing/index.ts",
    "packages/act/src/internal/index.ts",
    "packages/act-pg/src/index.ts",
    "packages/act-sqlite/src/index.ts",
    "packages/act-otel/src/index.ts",
    "packages/act-http/src/index.ts",
    "packages/inspector/src/index.ts",
  ].filter((entry) => existsSync(resolve(siteDir, entry)));
  const options: TypedocPluginOptions & Record<string, unknown> = {
    entryPoints,
    tsconfig: "./tsconfig.typedoc.json",
    out: "docs-api",
    // Sidebar ids are relative to the API's own docs instance (docs-api/).
    docsPath: resolve(siteDir, "docs-api"),
    // Module names are relative to `packages/` and a module is created even for
    // a single entry point, so the routes don't move while act-pg is missing.
    basePath: "packages",
    alwaysCreateEntryPointModule: true,
    name: "Act API reference",
    // The API index (/docs/api/) opens with a short orientation — which pages
    // to read first — followed by the list of packages.
    readme: resolve(siteDir, "scripts/typedoc/api-index.md"),
    mergeReadme: true,
    watch,
    // Run the compiler's checks: `tsc` in `npm test` is not the only guard.
    skipErrorChecking: false,
    excludePrivate: true,
    // Protected members are the app's parts that Act shares with the class it
    // extends (ActOperations, not exported: its public members are listed on
    // Act's page as Act's own, see undocumented-bases.mjs). They are not API a
    // reader can call.
    excludeProtected: true,
    excludeInternal: true,
    excludeExternals: true,
    // A reader starts from the functions (act(), state(), store()) and the
    // classes (Act, the stores); the types they use come after. Module pages
    // and the sidebar follow this order. Members stay alphabetical, except in
    // the builder types, whose TSDoc asks for source order (`@sortStrategy`)
    // so their steps read in the order they are chained.
    groupOrder: ["Functions", "Classes", "Interfaces", "Type Aliases", "Variables", "*"],
    // `@sortStrategy` orders a page's members; it is not text for the reader.
    // The other tags are TypeDoc 0.28's defaults (its OptionDefaults, not
    // imported here: this file is loaded by the Docusaurus config, and a
    // second copy of TypeDoc in the process makes it warn).
    notRenderedTags: [
      "@showCategories",
      "@showGroups",
      "@hideCategories",
      "@hideGroups",
      "@disableGroups",
      "@expand",
      "@preventExpand",
      "@expandType",
      "@summary",
      "@group",
      "@groupDescription",
      "@category",
      "@categoryDescription",
      "@sortStrategy",
    ],
    disableSources: false,
    // "Defined in" links to the file on the main branch of the repository the
    // site is built from. TypeDoc would otherwise only link files it finds in
    // a `.git` folder, so a build from a git worktree or an unpacked archive
    // would lose every link; with disableGit, {path} is relative to basePath.
    disableGit: true,
    gitRevision: "main",
    sourceLinkTemplate: `${repositoryUrl}/blob/{gitRevision}/packages/{path}#L{line}`,
    // Readable pages: tables, signatures as code, TSDoc examples stay code.
    parametersFormat: "table",
    // No "Default value" column: it printed `undefined` for every parameter
    // without a default, which reads as a default it does not have. Each
    // @param with a default says so in its description instead.
    tableColumnSettings: { hideDefaults: true },
    interfacePropertiesFormat: "table",
    classPropertiesFormat: "table",
    typeDeclarationFormat: "table",
    propertyMembersFormat: "table",
    enumMembersFormat: "table",
    indexFormat: "table",
    useCodeBlocks: true,
    expandObjects: false,
    expandParameters: false,
    // `<T>` in prose must not be read as JSX (see also markdown.format in the config).
    sanitizeComments: true,
    // Validation is an error: an undocumented export, an exported API that
    // references an unexported type, or a broken {@link} fails the build
    // (strict.mjs makes TypeDoc's findings fatal inside Docusaurus, which
    // otherwise only logs them).
    validation: { notExported: true, notDocumented: true, invalidLink: true },
    treatValidationWarningsAsErrors: true,
    packagesRequiringDocumentation: [
      "@act-root/act",
      "@act-root/act-pg",
      "@act-root/act-sqlite",
      "@act-root/act-otel",
      "@act-root/act-http",
      "@act-root/inspector",
    ],
    // undocumented-bases: Act's page reads as one class, without "Extends
    // ActOperations" or "Inherited from ActOperations.x" (a class a reader
    // cannot import).
    plugin: [
      "./scripts/typedoc/strict.mjs",
      "./scripts/typedoc/front-matter.mjs",
      "./scripts/typedoc/undocumented-bases.mjs",
    ],
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
  return options;
}
