// @ts-check
/**
 * The versions a generated project depends on. Act's packages are released
 * together at one version (the release check refuses anything else), and the
 * third-party ranges are the ones the repository itself builds and tests
 * with — so a generated project never asks for a release the repository has
 * not run. They are read from the repository's manifests: when packed
 * (`npm pack` runs scripts/write-versions.mjs) into `versions.json` beside
 * this folder, and when run from a checkout, straight from the manifests.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's own folder (bin/, lib/, templates/). */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The file `npm pack` writes the versions into. */
export const VERSIONS_FILE = join(PACKAGE_DIR, "versions.json");

/**
 * Every package a generated project can depend on, and where the
 * repository says which range to use: `[folder, manifest field]` (folder
 * relative to the repository's root).
 *
 * @type {Record<string, [string, "version" | "dependencies" | "devDependencies" | "peerDependencies"]>}
 */
const SOURCES = {
  "@act-root/act": ["packages/act", "version"],
  "@act-root/act-sqlite": ["packages/act-sqlite", "version"],
  "@act-root/act-pg": ["packages/act-pg", "version"],
  "@act-root/act-http": ["packages/act-http", "version"],
  zod: ["packages/act", "dependencies"],
  libsql: ["packages/act-sqlite", "dependencies"],
  pg: ["packages/act-pg", "dependencies"],
  hono: ["packages/act-http", "peerDependencies"],
  "@hono/node-server": ["packages/wolfdesk-http", "dependencies"],
  "@types/pg": [".", "devDependencies"],
  "@types/node": [".", "devDependencies"],
  typescript: [".", "devDependencies"],
  tsx: [".", "devDependencies"],
  vitest: [".", "devDependencies"],
};

/**
 * The ranges, by npm name, read from a checkout of the repository: `^x.y.z`
 * of each Act package's version, and the repository's own range of each
 * third-party package. Throws naming the manifest that lacks one.
 *
 * @param {string} repository - the checkout's root folder
 * @returns {Record<string, string>}
 */
export function repositoryVersions(repository) {
  /** @type {Record<string, string>} */
  const versions = {};
  for (const [name, [folder, field]] of Object.entries(SOURCES)) {
    const file = join(repository, folder, "package.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    const range = field === "version" ? manifest.version && `^${manifest.version}` : manifest[field]?.[name];
    if (typeof range !== "string")
      throw new Error(`${file} names no ${field === "version" ? "version" : `${field} range for ${name}`}`);
    versions[name] = range;
  }
  return versions;
}

/**
 * The ranges this copy of the command uses: those packed with it, or — run
 * from the repository — the repository's.
 *
 * @returns {Record<string, string>}
 */
export function versions() {
  if (existsSync(VERSIONS_FILE)) return JSON.parse(readFileSync(VERSIONS_FILE, "utf8"));
  return repositoryVersions(join(PACKAGE_DIR, "..", ".."));
}

/** This command's own version. */
export function ownVersion() {
  return String(JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")).version);
}
