// node scripts/versioned-site.mjs [<dir>] — a copy of this site as it will be
// after its first release, built: the repository's files are copied to <dir>
// (default .cache/versioned-site; installed packages linked, not copied), the docs
// of the packages' version are cut with scripts/cut-docs-version.mjs, and
// then the copy moves on past the release the way main does — a function
// only Next has (`nextOnly`), a line only Next's intro has — before
// `docusaurus build` writes <dir>/build. scripts/site-versions.test.mjs checks
// that build; the repository itself keeps no cut version until a release.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The text only the Next intro has, after the cut. */
export const NEXT_ONLY_TEXT = "This line is only in the docs of the next release.";
/** The function only the Next API has, after the cut. */
export const NEXT_ONLY_FUNCTION = "nextOnly";

/**
 * Copies the repository's files (tracked and not ignored) to `dir`, with
 * node_modules folders linked.
 *
 * @param {string} dir
 */
function copyRepository(dir) {
  rmSync(dir, { recursive: true, force: true });
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  // Installed packages are linked one by one, except the workspaces, which
  // must resolve to the copy's packages (the site bundles the calculator's
  // sources from the site folder); the packages' built output is copied.
  mkdirSync(join(dir, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules")))
    if (entry !== "@act-root") symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
  mkdirSync(join(dir, "node_modules/@act-root"));
  for (const pkg of readdirSync(join(root, "packages"))) {
    symlinkSync(join(dir, "packages", pkg), join(dir, "node_modules/@act-root", pkg));
    for (const sub of ["node_modules", "dist"]) {
      const from = join(root, "packages", pkg, sub);
      if (!existsSync(from)) continue;
      if (sub === "dist") cpSync(from, join(dir, "packages", pkg, sub), { recursive: true });
      else symlinkSync(from, join(dir, "packages", pkg, sub));
    }
  }
}

/**
 * Runs node in `cwd` and resolves to its output; rejects with it when it
 * fails. Asynchronous, so a test runner waiting on it stays responsive.
 *
 * @param {string} cwd
 * @param {string[]} args - node's arguments
 * @returns {Promise<string>}
 */
function node(cwd, args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, FORCE_COLOR: "0", NO_UPDATE_NOTIFIER: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", fail);
    child.on("close", (code) =>
      code === 0 ? done(output) : fail(new Error(`node ${args.join(" ")} failed (exit ${code}):\n${output}`))
    );
  });
}

/**
 * Builds the copy (see the top of this file) and returns where.
 *
 * @param {string} dir - where the copy goes (emptied first)
 */
export async function buildVersionedSite(dir) {
  copyRepository(dir);
  const version = JSON.parse(readFileSync(join(dir, "packages/act/package.json"), "utf8")).version;
  const cut = await node(dir, ["scripts/cut-docs-version.mjs", version]);
  // Main moves on: Next gets a line in the intro and a function in the API.
  const intro = join(dir, "docs/intro.mdx");
  writeFileSync(intro, `${readFileSync(intro, "utf8")}\n${NEXT_ONLY_TEXT}\n`);
  const index = join(dir, "packages/act/src/index.ts");
  writeFileSync(
    index,
    `${readFileSync(index, "utf8")}
/**
 * Only in the code after the release.
 *
 * @stable
 * @example
 * \`\`\`ts
 * ${NEXT_ONLY_FUNCTION}();
 * \`\`\`
 */
export function ${NEXT_ONLY_FUNCTION}(): void {}
`
  );
  const log = await node(dir, ["node_modules/@docusaurus/core/bin/docusaurus.mjs", "build"]);
  writeFileSync(join(dir, "build.log"), log);
  return { version, dir, build: join(dir, "build"), log, cut };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(root, ".cache/versioned-site"));
  const started = Date.now();
  const { build, version } = await buildVersionedSite(dir);
  console.log(`versioned site: ${version} cut and built in ${((Date.now() - started) / 1000).toFixed(0)} s: ${build}`);
}
