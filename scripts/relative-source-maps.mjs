// @ts-check
// `node scripts/relative-source-maps.mjs <folder>…` — run after a package's
// build: rewrites each source map under the folders so that its `file`,
// `sourceRoot` and `sources` hold no absolute path.
//
// Why: tsup turns the split CommonJS chunks into `require` calls in a second
// pass (sucrase), and that pass names the generated file by its absolute path
// on the build machine; the merged map keeps that path in `file` and as the
// source of the lines the pass added. The published map would then carry the
// builder's directory layout. The other maps already use paths relative to
// the map (`../src/act.ts`); this makes these the same. Only paths change: the
// mappings, and so every line a debugger or a stack trace shows, stay as they
// were.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The map with `file` and `sources` relative to `mapPath`'s folder, and an
 * absolute `sourceRoot` dropped (the sources are then relative already).
 *
 * @param {Record<string, any>} map
 * @param {string} mapPath
 * @returns {Record<string, any>}
 */
export function relativeMap(map, mapPath) {
  const here = dirname(resolve(mapPath));
  const root = typeof map.sourceRoot === "string" && isAbsolute(map.sourceRoot) ? map.sourceRoot : undefined;
  const local = (/** @type {unknown} */ path) => {
    if (typeof path !== "string") return path;
    const full = path.startsWith("file:") ? fileURLToPath(path) : root ? resolve(root, path) : path;
    return isAbsolute(full) ? relative(here, full).replaceAll("\\", "/") : path;
  };
  const { sourceRoot, ...rest } = map;
  return {
    ...rest,
    ...(sourceRoot !== undefined && !root ? { sourceRoot } : {}),
    ...(typeof map.file === "string" ? { file: local(map.file) } : {}),
    sources: Array.isArray(map.sources) ? map.sources.map(local) : map.sources,
  };
}

/**
 * Every `.map` under `dir`.
 *
 * @param {string} dir
 * @returns {string[]}
 */
const mapsUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".map"))
    .map((entry) => join(entry.parentPath, entry.name));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const folders = process.argv.slice(2);
  if (folders.length === 0) {
    console.error("usage: node scripts/relative-source-maps.mjs <folder>…");
    process.exit(2);
  }
  for (const folder of folders)
    for (const file of mapsUnder(folder)) {
      const before = readFileSync(file, "utf8");
      const after = JSON.stringify(relativeMap(JSON.parse(before), file));
      if (after !== before) writeFileSync(file, after);
    }
}
