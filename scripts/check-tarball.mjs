// @ts-check
// What a packed tarball must not give away about the machine that built it.
// The release dry run (`npm run release:dry-run`, and `npm run test:pack` in
// `npm test`) and `npm run pack:local` run these checks on every tarball they
// make; check-tarball.test.mjs runs them on broken examples.
//
// - Every source map's `file`, `sourceRoot` and `sources` are relative paths:
//   an absolute one ships the builder's directory layout (a CI runner's or a
//   developer's home) to every consumer, and points nowhere on their machine.
// - No file names the build machine's directories: the repository's folder
//   and the builder's home folder, wherever they appear (a map's
//   `sourcesContent`, a string the bundler inlined).
//
// The maps keep `sourcesContent`, the TypeScript sources they were built from:
// the tarballs do not ship `src/`, so without it a debugger or
// `node --enable-source-maps` could name a line of `../src/act.ts` but not show
// it. The sources are MIT like the rest of the package.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { gunzipSync } from "node:zlib";

/**
 * The files of a `.tgz` made by `npm pack`, by their path inside the package
 * (without npm's leading `package/`). Plain ustar with pax headers, which is
 * what npm writes; enough to read a tarball without a tar program or a
 * dependency.
 *
 * @param {string} path
 * @returns {Map<string, Buffer>}
 */
export function readTarball(path) {
  const tar = gunzipSync(readFileSync(path));
  /** @type {Map<string, Buffer>} */
  const files = new Map();
  /** @type {string | undefined} */
  let longName;
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (/** @type {number} */ from, /** @type {number} */ to) =>
      header.subarray(from, to).toString("utf8").replace(/\0.*$/s, "");
    const size = Number.parseInt(text(124, 136).trim() || "0", 8);
    const type = text(156, 157) || "0";
    const prefix = text(345, 500);
    const body = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      // A pax header: its `path` record, if any, names the next entry.
      const record = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      longName = record?.[1];
      continue;
    }
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
    longName = undefined;
    if (type === "0") files.set(name.replace(/^package\//, ""), Buffer.from(body));
  }
  return files;
}

/**
 * The build machine's folders that must not appear in a tarball: the
 * repository's and the user's home, each with a trailing separator so that a
 * short home such as `/root` does not match `@act-root/act`.
 *
 * @param {string} repository
 * @returns {string[]}
 */
export function machineFolders(repository) {
  const withSlash = (/** @type {string} */ dir) => (dir.endsWith("/") || dir.endsWith("\\") ? dir : `${dir}/`);
  const home = homedir();
  return [repository, home]
    .filter((dir) => dir && dir.replace(/[\\/]+$/, "").length > 1)
    .flatMap((dir) => [withSlash(dir), withSlash(dir).replaceAll("\\", "/")])
    .filter((dir, i, all) => all.indexOf(dir) === i);
}

/** `/x`, `C:\x`, `C:/x`, `\\server\x` and `file:` URLs: paths that mean the same folder on every machine. */
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/]|\\\\|file:)/;

/**
 * Problems of one source map, as "<file>: <field>: what".
 *
 * @param {string} file the map's path inside the tarball
 * @param {string} text
 * @returns {string[]}
 */
export function mapProblems(file, text) {
  /** @type {any} */
  let map;
  try {
    map = JSON.parse(text);
  } catch (e) {
    return [`${file}: not JSON (${e instanceof Error ? e.message : String(e)})`];
  }
  /** @type {string[]} */
  const problems = [];
  const absolute = (/** @type {string} */ field, /** @type {unknown} */ value) => {
    if (typeof value === "string" && ABSOLUTE.test(value))
      problems.push(`${file}: ${field} is the absolute path ${JSON.stringify(value)}; make it relative to the map`);
  };
  absolute("file", map.file);
  absolute("sourceRoot", map.sourceRoot);
  const sources = Array.isArray(map.sources) ? map.sources : [];
  for (const [i, source] of sources.entries()) absolute(`sources[${i}]`, source);
  return problems;
}

/**
 * Problems of a tarball's files: its maps' paths, and any file naming one of
 * `folders` (see machineFolders), with the line it is on.
 *
 * @param {string} tarball a name for the messages
 * @param {Map<string, Buffer>} files
 * @param {string[]} folders
 * @returns {string[]}
 */
export function tarballProblems(tarball, files, folders) {
  /** @type {string[]} */
  const problems = [];
  for (const [name, body] of files) {
    const text = body.toString("utf8");
    if (name.endsWith(".map")) problems.push(...mapProblems(`${tarball}: ${name}`, text));
    for (const folder of folders) {
      const at = text.indexOf(folder);
      if (at < 0) continue;
      const line = text.slice(0, at).split("\n").length;
      problems.push(`${tarball}: ${name}:${line}: names the build machine's folder ${folder}`);
    }
  }
  return problems;
}
