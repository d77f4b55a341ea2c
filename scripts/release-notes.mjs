// The release notes page (docs/guides/release-notes.mdx): one section per
// release, newest first, under an "Unreleased" section that collects what the
// next release changes for an app as the changes are merged. Cutting a
// release's docs (scripts/cut-docs-version.mjs) turns "Unreleased" into the
// release's section and opens a new, empty one above it.

/** The page, from the site folder. */
export const RELEASE_NOTES_PAGE = "docs/guides/release-notes.mdx";

/** The heading of the section the next release's notes are collected in. */
export const UNRELEASED_HEADING = "## Unreleased";

/** The text of an Unreleased section with nothing in it yet. */
export const NOTHING_YET =
  "Nothing yet. A change that asks something of an upgrading app (a renamed call, a moved export, a store change) adds its steps here.";

/** What a release whose Unreleased section stayed empty says. */
export const NO_STEPS = "No step needed: upgrade the packages together.";

/**
 * The page with its Unreleased section turned into the section of `version`,
 * released on `date`, and a new, empty Unreleased section above it.
 *
 * @param {string} page - the page's text
 * @param {string} version - the release, e.g. "0.1.0"
 * @param {string} date - the release date, YYYY-MM-DD
 * @returns {string}
 */
export function addReleaseSection(page, version, date) {
  const headings = page.split("\n").filter((line) => line.trimEnd() === UNRELEASED_HEADING);
  if (headings.length !== 1)
    throw new Error(
      `${RELEASE_NOTES_PAGE} must have exactly one "${UNRELEASED_HEADING}" heading (the notes of the release being cut); found ${headings.length}`
    );
  if (new RegExp(`^## ${version.replaceAll(".", "\\.")}(\\s|$)`, "m").test(page))
    throw new Error(`${RELEASE_NOTES_PAGE} already has a section for ${version}`);
  const start = page.search(/^## Unreleased[ \t]*$/m);
  const bodyStart = page.indexOf("\n", start) + 1;
  const next = page.slice(bodyStart).search(/^## /m);
  const end = next < 0 ? page.length : bodyStart + next;
  const body = page.slice(bodyStart, end).trim();
  const notes = !body || body === NOTHING_YET ? NO_STEPS : body;
  const sections = [
    `${UNRELEASED_HEADING}\n\n${NOTHING_YET}\n`,
    // An id without dots, so the anchor reads #v0-1-0 (not #010).
    `## ${version} \\{#v${version.replace(/[^0-9A-Za-z]+/g, "-")}\\}\n\nReleased ${date}.\n\n${notes}\n`,
  ];
  const rest = page.slice(end);
  return `${page.slice(0, start)}${sections.join("\n")}${rest ? `\n${rest}` : ""}`;
}
