// @ts-check
// Which hand-written pages teach a capability, and whether each ends with a
// `## Limitations` section: what the capability does not do, its known
// windows and its measured sizes. A reader choosing Act should find them on
// the page that sells the capability, not only on the guarantees page.
// Every page of docs/guides and docs/concepts is listed here, as a
// capability or with the reason it is not one, so a new page must be
// classified before the site tests pass. Used by limitations.test.mjs (the
// MDX) and site.test.mjs (the built HTML).

/** Pages (under docs/, without the extension) that must end with `## Limitations`. */
export const CAPABILITY_PAGES = [
  "concepts/state-management",
  "concepts/event-sourcing",
  "concepts/reactions-in-production",
  "concepts/changing-your-model",
  "guides/testing",
  "guides/http",
  "guides/sqlite",
  "guides/postgres-in-production",
  "guides/moving-a-store",
  "guides/deploying-and-upgrading",
  "guides/scaling-reactions",
  "guides/multi-tenancy",
  "guides/projections",
  "guides/workflows-and-timers",
  "guides/personal-data",
  "guides/archiving",
  "guides/observability",
  "guides/inspector",
];

/** The other pages of docs/guides and docs/concepts, each with why it has no such section. */
export const OTHER_PAGES = {
  "concepts/configuration": "a reference of settings; each capability's limits are on its own page",
  "concepts/guarantees": "the failure modes of every mechanism: the Limitations sections point to it",
  "concepts/how-it-runs": "how the pieces fit, with their costs; no capability of its own",
  "guides/getting-started": "a tutorial",
  "guides/choosing": "a decision guide that compares Act with others",
  "guides/production-checklist": "a checklist that points to the capability pages",
  "guides/errors": "a reference of error classes",
  "guides/performance": "the measurements the Limitations sections quote",
  "guides/faq": "short answers that point to the capability pages",
  "guides/migrating-from-rotorsoft-act": "a migration guide that maps another library's calls to the capability pages",
  "guides/migrating-from-emmett": "a migration guide that maps another library's calls to the capability pages",
  "guides/release-notes": "what each release changes and the steps to upgrade; no capability of its own",
};

export const HEADING = "Limitations";
/** A section that may follow the limitations: the page's list of API links. */
const TRAILER = "API on this page";

/**
 * The level-2 headings of an MDX page, outside code fences, each with the
 * text up to the next level-2 heading.
 *
 * @param {string} mdx
 * @returns {{ title: string, body: string }[]}
 */
export function sections(mdx) {
  /** @type {{ title: string, body: string }[]} */
  const found = [];
  let fence = "";
  for (const line of mdx.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) fence = fence ? "" : marker;
    const heading = fence || marker ? undefined : /^## (.+?)\s*(\{#[\w-]+\})?\s*$/.exec(line);
    if (heading) found.push({ title: heading[1], body: "" });
    else if (found.length) found[found.length - 1].body += `${line}\n`;
  }
  return found;
}

/**
 * What is wrong with a capability page's limitations, or nothing: the page
 * has a `## Limitations` section, with something in it, and only the API
 * link list comes after it.
 *
 * @param {string} mdx
 * @returns {string[]}
 */
export function limitationsProblems(mdx) {
  const all = sections(mdx);
  const at = all.findIndex((s) => s.title === HEADING);
  if (at < 0) return [`no "## ${HEADING}" section`];
  const problems = [];
  const after = all.slice(at + 1).map((s) => s.title);
  if (after.some((title) => title !== TRAILER))
    problems.push(
      `"## ${HEADING}" is followed by ${after.map((t) => `"## ${t}"`).join(", ")}: it must be the last section`
    );
  const items = all[at].body.split("\n").filter((line) => /^\s*(- |\* |\d+\. |\| )/.test(line)).length;
  if (items < 2) problems.push(`"## ${HEADING}" lists ${items} item(s): say what the capability does not do`);
  return problems;
}
