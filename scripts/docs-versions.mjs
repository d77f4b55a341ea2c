// The docs versions of the site, read from the files `docusaurus docs:version`
// writes (scripts/cut-docs-version.mjs cuts the guides and the API reference
// together): `versions.json` for the guides, `api_versions.json` for the API
// reference, newest first.
//
// Before the first release neither file exists: the current docs are the
// site's only version, labelled Next and served under /docs/… . Once a
// version is cut, the newest release is served under /docs/… and the current
// docs move to /docs/next/… with the theme's "unreleased" banner.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The label of the current (unreleased) docs in the version dropdown. */
export const CURRENT_LABEL = "Next";
/** The URL segment of the current docs once a release is served at /docs/. */
export const CURRENT_PATH = "next";

/**
 * The file listing a docs instance's cut versions.
 *
 * @param {string} siteDir - the site folder
 * @param {string} pluginId - the docs instance ("default" for the guides)
 */
export function versionsFile(siteDir, pluginId) {
  return join(siteDir, pluginId === "default" ? "versions.json" : `${pluginId}_versions.json`);
}

/**
 * The cut versions of a docs instance, newest first; none before the first release.
 *
 * @param {string} siteDir - the site folder
 * @param {string} pluginId - the docs instance ("default" for the guides)
 * @returns {string[]}
 */
export function releasedVersions(siteDir, pluginId) {
  const file = versionsFile(siteDir, pluginId);
  if (!existsSync(file)) return [];
  const versions = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(versions) || versions.some((v) => typeof v !== "string"))
    throw new Error(`${file} must be a JSON array of version names, newest first`);
  return versions;
}

/** Set by scripts/cut-docs-version.mjs while it runs Docusaurus to cut a version. */
export const CUTTING_ENV = "ACT_DOCS_CUTTING";

/**
 * The released versions of the guides and of the API reference. They are
 * cut together, and a site whose guides were cut without the API (or the
 * other way round) would offer a version whose links lead nowhere, so that
 * stops the build — except between the two steps of a cut, when one list
 * has the new version and the other not yet.
 *
 * @param {string} siteDir - the site folder
 * @param {string} apiPluginId - the docs instance of the API reference
 * @param {Record<string, string | undefined>} env - the environment (process.env)
 */
export function siteVersions(siteDir, apiPluginId, env = process.env) {
  const guides = releasedVersions(siteDir, "default");
  const api = releasedVersions(siteDir, apiPluginId);
  if (guides.join() !== api.join() && env[CUTTING_ENV] !== "1")
    throw new Error(
      `The guides are cut at [${guides.join(", ")}] (versions.json) but the API reference at [${api.join(", ")}] (${apiPluginId}_versions.json): cut both with scripts/cut-docs-version.mjs`
    );
  return { guides, api };
}

/**
 * The version options of a docs instance (`lastVersion`, `onlyIncludeVersions`,
 * `versions`) for the released versions given.
 *
 * @param {string[]} released - the cut versions, newest first
 */
export function versionOptions(released) {
  return {
    // The version a reader lands on at /docs/…: the newest release, or the
    // current docs while there is none.
    lastVersion: released[0] ?? "current",
    onlyIncludeVersions: ["current", ...released],
    versions: {
      current: released.length
        ? { label: CURRENT_LABEL, path: CURRENT_PATH, banner: /** @type {const} */ ("unreleased") }
        : { label: CURRENT_LABEL },
      ...Object.fromEntries(released.map((version) => [version, { label: version }])),
    },
  };
}

/**
 * The URL segment of a version's docs under /docs/ ("" for the version served there).
 *
 * @param {string} version - a cut version or "current"
 * @param {string[]} released - the cut versions, newest first
 */
export function versionPath(version, released) {
  if (version === (released[0] ?? "current")) return "";
  return version === "current" ? CURRENT_PATH : version;
}
