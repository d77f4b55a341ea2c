// Where the API part (see ./index.ts) puts back what the browser bundle
// left out of the data every page loads. It runs once, when the API part's
// chunk runs: before the first API page renders.

/** The API pages' share of a docs version object, for src/theme/DocVersionRoot to merge back. */
export type Extras = { docsSidebars: Record<string, unknown>; docs: Record<string, unknown> };

type GlobalDocs = { pluginId: string; version: string; docs: unknown[] };
type VersionExtras = Extras & { pluginId: string; version: string };
type DocsGlobalData = Record<string, { versions: { name: string; docs: unknown[] }[] }>;

/** The objects Docusaurus reads them from: its chunk registry and route chunk table, and the global data. */
export type Targets = {
  registry: Record<string, unknown>;
  routesChunkNames: Record<string, unknown>;
  globalData: Record<string, unknown>;
};

/** What the API part carries. */
export type ApiPart = {
  registry: Record<string, unknown>;
  routesChunkNames: Record<string, unknown>;
  globalDocs: GlobalDocs[];
  versions: VersionExtras[];
};

const byVersion = new Map<string, Extras>();
const key = (pluginId: string, version: string) => `${pluginId}\u0000${version}`;

/**
 * Puts the API part back: registry and chunk table entries (so the API
 * routes' components can load), the API docs into the docs list of the
 * global data (so the navbar knows an API page is the API sidebar's), and
 * the version data for DocVersionRoot.
 */
export function addApiPart(targets: Targets, part: ApiPart): void {
  Object.assign(targets.registry, part.registry);
  Object.assign(targets.routesChunkNames, part.routesChunkNames);
  const docsData = targets.globalData["docusaurus-plugin-content-docs"] as DocsGlobalData;
  for (const { pluginId, version, docs } of part.globalDocs) {
    const target = docsData[pluginId]?.versions.find((v) => v.name === version);
    if (!target) throw new Error(`api-apart: the global data has no docs version ${pluginId}/${version}`);
    target.docs.push(...docs);
  }
  for (const { pluginId, version, docsSidebars, docs } of part.versions)
    byVersion.set(key(pluginId, version), { docsSidebars, docs });
}

/** The API pages' share of a version object, once the API part has run. */
export function extrasOf(pluginId: string, version: string): Extras | undefined {
  return byVersion.get(key(pluginId, version));
}
