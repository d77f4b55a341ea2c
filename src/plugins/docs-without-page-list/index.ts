/**
 * The docs plugin, minus the page list it puts in every page's code.
 *
 * The docs plugin publishes, as global data, each version's list of pages
 * (id, path, sidebar): the theme's navbar reads it to tell which sidebar
 * the page being read belongs to. Global data is in the main bundle, so for
 * the API reference (165 pages) the list cost every page about 19 KB of
 * JavaScript, to answer a question whose answer is always "the API sidebar".
 *
 * This wraps the docs plugin (its own constructor, options and lifecycles)
 * and changes one thing, the global data it sets: from a version whose pages
 * all share its one sidebar, the pages of that sidebar leave the list (the
 * version's main page stays, and so does every page the sidebar lacks), and
 * the version says which sidebar they were in (`omittedSidebar`).
 * `src/theme/NavbarItem/DocSidebarNavbarItem.tsx` reads it: a page of such
 * a version that is not in the list is in that sidebar.
 *
 * Wrapping the plugin and overriding `contentLoaded` is the extension route
 * the Docusaurus maintainers give for changing a plugin's global data
 * (https://github.com/facebook/docusaurus/issues/4492); no option exists.
 */
import pluginContentDocs, { validateOptions } from "@docusaurus/plugin-content-docs";
import type { LoadContext, Plugin, PluginModule } from "@docusaurus/types";

type PluginOptions = Parameters<typeof pluginContentDocs>[1];

/** One page in the docs plugin's global data. */
export type GlobalDoc = { id: string; path: string; sidebar?: string; unlisted?: boolean };

/** One version in the docs plugin's global data, as this plugin leaves it. */
export type GlobalVersion = {
  mainDocId: string;
  docs: GlobalDoc[];
  sidebars?: Record<string, unknown>;
  /** The sidebar of every page of the version that `docs` leaves out. */
  omittedSidebar?: string;
  [key: string]: unknown;
};

/** The docs plugin's global data. */
export type GlobalDocsData = { versions: GlobalVersion[]; [key: string]: unknown };

/**
 * The global data without the pages a reader of it can tell anyway: those of
 * a version's only sidebar, when every page of the version is in it.
 *
 * @example
 * withoutPageList({ versions: [{ mainDocId: "index", sidebars: { api: {} },
 *   docs: [{ id: "index", path: "/api/", sidebar: "api" }, { id: "a", path: "/api/a", sidebar: "api" }] }] });
 * // → versions[0].docs is [index] only, versions[0].omittedSidebar is "api"
 */
export function withoutPageList(data: GlobalDocsData): GlobalDocsData {
  return {
    ...data,
    versions: data.versions.map((version) => {
      const sidebars = Object.keys(version.sidebars ?? {});
      if (sidebars.length !== 1) return version;
      const [sidebar] = sidebars;
      const kept = version.docs.filter(
        (doc) => doc.id === version.mainDocId || doc.sidebar !== sidebar || doc.unlisted
      );
      return kept.length === version.docs.length ? version : { ...version, docs: kept, omittedSidebar: sidebar };
    }),
  };
}

/** The docs plugin with the smaller global data (same options, same routes). */
const docsWithoutPageList: PluginModule = async (context: LoadContext, options: unknown): Promise<Plugin<unknown>> => {
  const docs = (await pluginContentDocs(context, options as PluginOptions)) as Plugin<unknown>;
  const { contentLoaded } = docs;
  if (!contentLoaded) throw new Error("src/plugins/docs-without-page-list: the docs plugin has no contentLoaded");
  return {
    ...docs,
    contentLoaded: ({ content, actions }) =>
      contentLoaded({
        content,
        actions: {
          ...actions,
          setGlobalData: (data) => actions.setGlobalData(withoutPageList(data as GlobalDocsData)),
        },
      }),
  };
};

// Docusaurus validates (and fills in the defaults of) a plugin's options with
// its validateOptions; the docs plugin's own does it here too.
docsWithoutPageList.validateOptions = validateOptions as PluginModule["validateOptions"];

export default docsWithoutPageList;
