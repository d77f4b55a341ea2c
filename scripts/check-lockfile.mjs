// `npm run check:lockfile` — fails when package-lock.json is not what an
// install would write for the current package.json files.
//
// It asks npm to resolve the tree again without touching node_modules
// (`npm install --package-lock-only --ignore-scripts`), compares the result
// with the lockfile as it was, puts the original back and exits 1 with the
// entries that would change. A lockfile that passes is one that `npm ci`
// accepts and that a later `npm install` leaves alone, so a clean clone stays
// clean after installing.
//
// Typical causes of a failure: a dependency added to a package.json without
// committing the lockfile with it; a dependency that asks for a floating tag
// such as `latest` (pin it under "overrides" in the root package.json); an
// optional per-platform binary that the registry did not serve when the
// lockfile was written (see the comment in .ci/run).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const lockPath = join(root, "package-lock.json");

const before = readFileSync(lockPath, "utf8");

/**
 * Optional dependencies the lockfile does not record. npm drops an optional
 * package silently when the registry does not serve it (as this registry
 * mirror does for some other platforms' native binaries); `npm ci` then
 * rejects the lockfile on every machine. Resolution walks up node_modules
 * folders the way Node does.
 */
export function missingOptional(lock) {
  const packages = lock.packages ?? {};
  const missing = [];
  for (const [path, meta] of Object.entries(packages)) {
    for (const name of Object.keys(meta.optionalDependencies ?? {})) {
      let dir = path;
      let found = false;
      for (;;) {
        if (packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]) {
          found = true;
          break;
        }
        if (!dir) break;
        const cut = dir.lastIndexOf("/node_modules/");
        dir = cut >= 0 ? dir.slice(0, cut) : "";
      }
      if (!found) missing.push(`${path || "(root)"} -> ${name}`);
    }
  }
  return missing;
}
const missing = missingOptional(JSON.parse(before));
if (missing.length > 0) {
  console.error("check:lockfile: optional dependencies missing from package-lock.json:");
  for (const line of missing.slice(0, 40)) console.error(`  ${line}`);
  console.error(
    '`npm ci` rejects such a lockfile. Pin the package that asks for them (root "overrides")\n' +
      "to a release whose every platform binary the registry serves, then run `npm install`."
  );
  process.exit(1);
}
/**
 * Every `@docusaurus/*` package installed at one exact version: the version
 * of `@docusaurus/core` in the root package.json, which the other direct
 * ones repeat and "overrides" applies to the rest (`$@docusaurus/core`). A
 * mix of releases builds, but not always correctly.
 */
export function mixedDocusaurus(lock, manifest) {
  const wanted = manifest.devDependencies?.["@docusaurus/core"];
  const problems = [];
  if (!/^\d+\.\d+\.\d+$/.test(wanted ?? ""))
    problems.push(`@docusaurus/core is "${wanted}" in package.json, not one exact version`);
  for (const [name, spec] of Object.entries(manifest.devDependencies ?? {}))
    if (name.startsWith("@docusaurus/") && spec !== wanted)
      problems.push(`package.json: ${name} is "${spec}", not "${wanted}"`);
  for (const [path, meta] of Object.entries(lock.packages ?? {}))
    if (/(^|\/)node_modules\/@docusaurus\/[^/]+$/.test(path) && meta.version !== wanted)
      problems.push(`${path} is ${meta.version}, not ${wanted}`);
  return problems;
}
const mixed = mixedDocusaurus(JSON.parse(before), JSON.parse(readFileSync(join(root, "package.json"), "utf8")));
if (mixed.length > 0) {
  console.error("check:lockfile: Docusaurus packages on more than one version:");
  for (const line of mixed) console.error(`  ${line}`);
  console.error(
    'Set every "@docusaurus/*" in the root package.json to the same exact version, then run `npm install`.'
  );
  process.exit(1);
}
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = spawnSync(npm, ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
});
const after = readFileSync(lockPath, "utf8");
if (after !== before) writeFileSync(lockPath, before);

if (run.status !== 0) {
  process.stderr.write(run.stdout + run.stderr);
  console.error("check:lockfile: npm could not resolve the dependency tree (see above)");
  process.exit(1);
}
if (after === before) {
  console.log("check:lockfile: package-lock.json is up to date");
  process.exit(0);
}

/** "name@version" of every entry, so the message says what would change. */
function entries(text) {
  const out = new Map();
  for (const [path, meta] of Object.entries(JSON.parse(text).packages ?? {})) {
    out.set(path || "(root)", meta.version ?? meta.resolved ?? "");
  }
  return out;
}
const old = entries(before);
const now = entries(after);
const changes = [];
for (const [path, version] of now) {
  if (!old.has(path)) changes.push(`+ ${path} ${version}`);
  else if (old.get(path) !== version) changes.push(`~ ${path} ${old.get(path)} -> ${version}`);
}
for (const [path, version] of old) if (!now.has(path)) changes.push(`- ${path} ${version}`);
console.error("check:lockfile: an install would rewrite package-lock.json:");
for (const line of changes.slice(0, 40)) console.error(`  ${line}`);
if (changes.length > 40) console.error(`  … and ${changes.length - 40} more`);
if (changes.length === 0) console.error("  (same packages and versions; fields or order differ)");
console.error("Run `npm install`, then commit package-lock.json together with package.json.");
process.exit(1);
