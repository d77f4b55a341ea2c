#!/usr/bin/env node
/**
 * `npm run pack:local [-- DIR]` — the install path while the packages are not
 * on the npm registry: builds the published packages and packs each one with
 * `npm pack` into DIR (default `packs/` at the repository root), under a name
 * without the version, so the commands in the docs stay the same from one
 * release to the next:
 *
 *     packs/act-root-act.tgz         @act-root/act
 *     packs/act-root-act-pg.tgz      @act-root/act-pg
 *     packs/act-root-act-sqlite.tgz  @act-root/act-sqlite
 *     packs/act-root-act-otel.tgz    @act-root/act-otel
 *     packs/act-root-act-http.tgz    @act-root/act-http
 *     packs/act-root-inspector.tgz   @act-root/inspector
 *     packs/create-act-app.tgz       create-act-app (the starter)
 *
 * A project then installs a tarball where the docs name the package:
 * `npm install /path/to/packs/act-root-act.tgz zod`. The tarballs are the
 * ones `npm publish` would upload (the release dry run checks what they hold);
 * each is refused here too if it names the build machine's folders
 * (check-tarball.mjs), since these get handed around as they are.
 *
 * Options: --no-build (pack the dist/ folders as they are).
 *
 * The snippet check (check-snippets.mjs) imports `PACKED` and `packLocal`:
 * the docs' code blocks resolve `@act-root/*` to these tarballs, so a page
 * can only import what a reader can install.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { machineFolders, readTarball, tarballProblems } from "./check-tarball.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * The published packages, by npm name: every workspace package not marked
 * private (the example apps and the peer benchmark are), so a new public
 * package is packed without a change here.
 *
 * @type {string[]}
 */
export const PACKED = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, "packages", entry.name, "package.json")))
  .map((entry) => JSON.parse(readFileSync(join(root, "packages", entry.name, "package.json"), "utf8")))
  .filter((manifest) => !manifest.private)
  .map((manifest) => manifest.name)
  .sort();

/** The file name a package's tarball gets here: its npm name without `@`, `/` → `-`, no version. */
export const tarballName = (/** @type {string} */ name) => `${name.replace(/^@/, "").replace("/", "-")}.tgz`;

/**
 * Runs npm in the repository and returns its stdout; `quiet` keeps its
 * notices (stderr) out of the caller's output unless it fails.
 *
 * @param {string[]} npmArgs
 * @param {{ stdout?: "pipe" | "inherit", quiet?: boolean }} [options]
 */
function npmRun(npmArgs, { stdout = "pipe", quiet = false } = {}) {
  const run = spawnSync(npm, npmArgs, {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", stdout, quiet ? "pipe" : "inherit"],
  });
  if (run.status !== 0)
    throw new Error(
      `npm ${npmArgs.join(" ")} exited with ${run.status ?? run.signal}${quiet ? `\n${run.stderr}` : ""}`
    );
  return run.stdout;
}

/**
 * Packs every package of `PACKED` into `out` as `act-root-<name>.tgz` (built
 * first unless `build` is false) and returns package name → tarball path.
 * Throws when npm fails or a tarball names the build machine's folders.
 *
 * @param {string} out
 * @param {{ build?: boolean, quiet?: boolean }} [options]
 * @returns {Map<string, string>}
 */
export function packLocal(out, { build = true, quiet = false } = {}) {
  if (build) npmRun(["run", "build:packages"], { stdout: "inherit", quiet });
  mkdirSync(out, { recursive: true });
  // Packed into a folder of their own first, so a tarball left from another
  // version is never picked up under the stable name.
  const staging = mkdtempSync(join(tmpdir(), "act-packs-"));
  try {
    const packed = JSON.parse(
      npmRun(["pack", "--json", "--pack-destination", staging, ...PACKED.flatMap((name) => ["-w", name])], { quiet })
    );
    const problems = packed.flatMap((/** @type {{ filename: string }} */ { filename }) =>
      tarballProblems(filename, readTarball(join(staging, filename)), machineFolders(root))
    );
    if (problems.length > 0) throw new Error(problems.map((problem) => `pack:local: ${problem}`).join("\n"));
    /** @type {Map<string, string>} */
    const tarballs = new Map();
    for (const { name, filename } of packed) {
      const target = join(out, tarballName(name));
      copyFileSync(join(staging, filename), target);
      tarballs.set(name, target);
      if (!quiet) console.log(`pack:local: ${name} → ${target}`);
    }
    return tarballs;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const out = resolve(args.find((arg) => !arg.startsWith("--")) ?? join(root, "packs"));
  try {
    packLocal(out, { build: !args.includes("--no-build") });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
