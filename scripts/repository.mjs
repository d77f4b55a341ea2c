// The repository the site is built from, for every link to it: the navbar and
// footer links, "Edit this page" on the guides, and "Defined in" on the API
// pages. The Pages workflow sets GITHUB_REPOSITORY ("owner/repo"); a local
// build without it links to DEFAULT_REPOSITORY, the project's own repository
// (README.md says how to point a fork's local build at the fork).

/** The project's repository on GitHub, used when GITHUB_REPOSITORY is unset or empty. */
export const DEFAULT_REPOSITORY = "act-root/act-root";

/**
 * The owner, the repository name and its web address.
 *
 * @param {Record<string, string | undefined>} env - the environment (process.env)
 */
export function repository(env = process.env) {
  const slug = env.GITHUB_REPOSITORY || DEFAULT_REPOSITORY;
  const [owner, name] = slug.split("/");
  if (!owner || !name) throw new Error(`GITHUB_REPOSITORY must read "owner/repo", not "${slug}"`);
  return { owner, name, url: `https://github.com/${owner}/${name}` };
}
