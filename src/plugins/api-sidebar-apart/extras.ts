// Where the API pages' part of a docs version object lands when its chunk
// runs (see ./index.ts), for src/theme/DocVersionRoot to put back.
export type Extras = { docsSidebars: Record<string, unknown>; docs: Record<string, unknown> };

const byVersion = new Map<string, Extras>();
const key = (pluginId: string, version: string) => `${pluginId}\u0000${version}`;

export function registerExtras(pluginId: string, version: string, extras: Extras): void {
  byVersion.set(key(pluginId, version), extras);
}

export function extrasOf(pluginId: string, version: string): Extras | undefined {
  return byVersion.get(key(pluginId, version));
}
