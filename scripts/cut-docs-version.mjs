// node scripts/cut-docs-version.mjs <version> [--site <dir>]
//
// Cuts the docs of a release, with Docusaurus' own versioning, so the site
// keeps them as they were while the current docs ("Next") move on:
//
// 1. the release notes page (docs/guides/release-notes.mdx) gets the
//    release's section: its "Unreleased" notes, under the version and the
//    date, below a new, empty "Unreleased";
// 2. `docusaurus docs:version <version>` copies the guides (docs/) to
//    versioned_docs/version-<version>/ and their sidebar, and lists the
//    version in versions.json;
// 3. `docusaurus docs:version:api <version>` does the same for the API
//    reference. Running Docusaurus runs TypeDoc first (the plugin generates
//    docs-api/ when it loads), so the copy is the API of the code being
//    released; the sidebar TypeDoc made is saved resolved
//    (api_versioned_sidebars/), so the release keeps its own page list;
// 4. the workspace files the guides show (`!!raw-loader!@site/packages/…`
//    imports: the example apps' code) are copied beside the release's guides
//    (versioned_docs/version-<version>/_sources/) and the imports point at
//    the copies, so a release shows its own example code.
//
// It refuses, before touching anything, a version that is not
// MAJOR.MINOR.PATCH[-PRERELEASE], one already cut, one not newer than the
// newest cut, one the packages are not at (set the packages' version first),
// and a release notes page without its Unreleased section. If Docusaurus
// fails, what the run wrote is removed again.
//
// The site config reads versions.json and api_versions.json
// (scripts/docs-versions.mjs): with a cut version, the newest release is
// served under /docs/ and the current docs under /docs/next/.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CUTTING_ENV, releasedVersions, versionsFile } from "./docs-versions.mjs";
import { addReleaseSection, RELEASE_NOTES_PAGE } from "./release-notes.mjs";

/** The docs instance of the API reference (docusaurus.config.ts). */
export const API_PLUGIN_ID = "api";

/** A release's version: MAJOR.MINOR.PATCH with an optional -PRERELEASE, as in package.json. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A refusal: the reader gets the message, not a stack. */
export class CutError extends Error {}

/**
 * Compares two versions by semver precedence (negative when `a` is older).
 *
 * @param {string} a
 * @param {string} b
 */
export function compareVersions(a, b) {
  const [, ...pa] = SEMVER.exec(a) ?? [];
  const [, ...pb] = SEMVER.exec(b) ?? [];
  for (let i = 0; i < 3; i++) if (Number(pa[i]) !== Number(pb[i])) return Number(pa[i]) - Number(pb[i]);
  // A prerelease comes before its release (0.2.0-rc.1 < 0.2.0).
  if (!pa[3] || !pb[3]) return (pa[3] ? -1 : 0) - (pb[3] ? -1 : 0);
  return pa[3].localeCompare(pb[3], "en", { numeric: true });
}

/**
 * Throws a CutError saying what is wrong with cutting `version` in `siteDir`.
 *
 * @param {string} siteDir - the site folder
 * @param {string | undefined} version - the version asked for
 */
export function checkVersion(siteDir, version) {
  if (!version) throw new CutError("which version? Usage: node scripts/cut-docs-version.mjs <version>, e.g. 0.1.0");
  if (!SEMVER.test(version))
    throw new CutError(
      `"${version}" is not a release version: write MAJOR.MINOR.PATCH, optionally with -PRERELEASE (0.1.0, 1.0.0-rc.1), without a leading "v"`
    );
  const guides = releasedVersions(siteDir, "default");
  const api = releasedVersions(siteDir, API_PLUGIN_ID);
  if (guides.join() !== api.join())
    throw new CutError(
      `versions.json lists [${guides.join(", ")}] but api_versions.json [${api.join(", ")}]: the guides and the API reference must be cut together; fix the files first`
    );
  if (guides.includes(version) || existsSync(join(siteDir, "versioned_docs", `version-${version}`)))
    throw new CutError(`${version} is already cut (${relative(siteDir, versionsFile(siteDir, "default"))} lists it)`);
  const newest = guides[0];
  if (newest && compareVersions(version, newest) <= 0)
    throw new CutError(`${version} is not newer than ${newest}, the newest version cut: versions are cut in order`);
  const packageFile = join(siteDir, "packages/act/package.json");
  const packageVersion = existsSync(packageFile) ? JSON.parse(readFileSync(packageFile, "utf8")).version : undefined;
  if (packageVersion !== version)
    throw new CutError(
      `the packages are at ${packageVersion ?? "no version"} (packages/act/package.json), not ${version}: set the release's version in the packages first, so the API reference cut is the released code`
    );
}

/**
 * The versioned guides' raw-loader imports of workspace files, pointed at
 * copies beside them, so the release keeps the code it showed.
 *
 * @param {string} siteDir - the site folder
 * @param {string} version - the version cut
 * @returns {string[]} the files copied, from the site folder
 */
export function freezeSources(siteDir, version) {
  const docsDir = join(siteDir, "versioned_docs", `version-${version}`);
  const sourcesDir = join(docsDir, "_sources");
  const copied = new Set();
  const pages = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? entry.name.startsWith("_")
          ? []
          : pages(join(dir, entry.name))
        : /\.mdx?$/.test(entry.name)
          ? [join(dir, entry.name)]
          : []
    );
  for (const page of pages(docsDir)) {
    const text = readFileSync(page, "utf8");
    const frozen = text.replace(/(['"])!!raw-loader!@site\/([^'"]+)\1/g, (_, quote, path) => {
      const source = resolve(siteDir, path);
      if (!source.startsWith(siteDir + sep) || !existsSync(source) || !statSync(source).isFile())
        throw new CutError(`${relative(siteDir, page)} shows ${path}, which is not a file of the site`);
      const target = join(sourcesDir, path);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(source, target);
      copied.add(relative(siteDir, target));
      return `${quote}!!raw-loader!@site/${relative(siteDir, target).split(sep).join("/")}${quote}`;
    });
    if (frozen !== text) writeFileSync(page, frozen);
  }
  return [...copied].sort();
}

/**
 * Runs a Docusaurus command in the site folder; throws with its output when it fails.
 *
 * @param {string} siteDir
 * @param {string[]} args
 */
function docusaurus(siteDir, args) {
  const bin = join(siteDir, "node_modules/@docusaurus/core/bin/docusaurus.mjs");
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: siteDir,
    // The config accepts the guides cut and the API not yet, between the two commands.
    env: { ...process.env, FORCE_COLOR: "0", NO_UPDATE_NOTIFIER: "1", [CUTTING_ENV]: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0)
    throw new Error(`docusaurus ${args.join(" ")} failed (exit ${run.status}):\n${run.stdout}${run.stderr}`);
}

/**
 * Cuts the docs of `version` in `siteDir` (see the top of this file).
 *
 * @param {{ siteDir: string, version: string | undefined, date?: string, run?: typeof docusaurus }} options
 *   `date` defaults to today (UTC); `run` runs a Docusaurus command (tests replace it).
 */
export function cutDocsVersion({ siteDir, version, date = new Date().toISOString().slice(0, 10), run = docusaurus }) {
  checkVersion(siteDir, version);
  const notesFile = join(siteDir, RELEASE_NOTES_PAGE);
  if (!existsSync(notesFile)) throw new CutError(`${RELEASE_NOTES_PAGE} is missing: the release's notes go there`);
  const notes = readFileSync(notesFile, "utf8");
  let withRelease;
  try {
    withRelease = addReleaseSection(notes, version, date);
  } catch (error) {
    throw new CutError(error.message);
  }

  // What the run writes, to remove again if Docusaurus fails half-way.
  const written = [
    join(siteDir, "versioned_docs", `version-${version}`),
    join(siteDir, "versioned_sidebars", `version-${version}-sidebars.json`),
    join(siteDir, `${API_PLUGIN_ID}_versioned_docs`, `version-${version}`),
    join(siteDir, `${API_PLUGIN_ID}_versioned_sidebars`, `version-${version}-sidebars.json`),
  ];
  const listings = [versionsFile(siteDir, "default"), versionsFile(siteDir, API_PLUGIN_ID)].map((file) => ({
    file,
    text: existsSync(file) ? readFileSync(file, "utf8") : undefined,
  }));
  writeFileSync(notesFile, withRelease);
  try {
    run(siteDir, ["docs:version", version]);
    run(siteDir, [`docs:version:${API_PLUGIN_ID}`, version]);
    // A copy of an older build's docs/api/ (ignored by the guides' instance)
    // and TypeDoc's sidebar module are not part of the release's docs.
    rmSync(join(siteDir, "versioned_docs", `version-${version}`, "api"), { recursive: true, force: true });
    rmSync(join(siteDir, `${API_PLUGIN_ID}_versioned_docs`, `version-${version}`, "typedoc-sidebar.cjs"), {
      force: true,
    });
    const sources = freezeSources(siteDir, version);
    return { version, sources };
  } catch (error) {
    writeFileSync(notesFile, notes);
    for (const path of written) rmSync(path, { recursive: true, force: true });
    for (const { file, text } of listings)
      if (text === undefined) rmSync(file, { force: true });
      else writeFileSync(file, text);
    throw error;
  }
}

function main() {
  const args = process.argv.slice(2);
  const siteAt = args.indexOf("--site");
  const siteDir = resolve(
    siteAt >= 0 ? args.splice(siteAt, 2)[1] : join(dirname(fileURLToPath(import.meta.url)), "..")
  );
  const [version, ...extra] = args;
  try {
    if (extra.length) throw new CutError(`one version at a time; got ${args.join(" ")}`);
    const { sources } = cutDocsVersion({ siteDir, version });
    console.log(
      [
        `cut-docs-version: the docs of ${version} are cut.`,
        `  guides: versioned_docs/version-${version}/ (+ ${sources.length} example file(s) in its _sources/), versioned_sidebars/, versions.json`,
        `  API reference: ${API_PLUGIN_ID}_versioned_docs/version-${version}/, ${API_PLUGIN_ID}_versioned_sidebars/, ${API_PLUGIN_ID}_versions.json`,
        `  release notes: ${RELEASE_NOTES_PAGE} has the ${version} section and a new, empty Unreleased one`,
        "Build the site (npm run build) to check, then commit all of it with the release.",
      ].join("\n")
    );
  } catch (error) {
    console.error(`cut-docs-version: ${error instanceof CutError ? error.message : error.stack}`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
