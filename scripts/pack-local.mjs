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
 *
 * A project then installs a tarball where the docs name the package:
 * `npm install /path/to/packs/act-root-act.tgz zod`. The tarballs are the
 * ones `npm publish` would upload (the release dry run checks what they hold);
 * each is refused here too if it names the build machine's folders
 * (check-tarball.mjs), since these get handed around as they are.
 *
 * Options: --no-build (pack the dist/ folders as they are).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { machineFolders, readTarball, tarballProblems } from "./check-tarball.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const out = resolve(args.find((arg) => !arg.startsWith("--")) ?? join(root, "packs"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The published packages, by workspace name. */
const PACKED = ["@act-root/act", "@act-root/act-pg", "@act-root/act-sqlite", "@act-root/act-otel"];

/** The file name a package's tarball gets here: its npm name without `@`, `/` → `-`, no version. */
const tarballName = (name) => `${name.replace(/^@/, "").replace("/", "-")}.tgz`;

/**
 * @param {string[]} npmArgs
 * @param {"pipe" | "inherit"} [stdio]
 */
function npmRun(npmArgs, stdio = "pipe") {
  const run = spawnSync(npm, npmArgs, { cwd: root, encoding: "utf8", stdio: ["ignore", stdio, "inherit"] });
  if (run.status !== 0) throw new Error(`npm ${npmArgs.join(" ")} exited with ${run.status ?? run.signal}`);
  return run.stdout;
}

if (!args.includes("--no-build")) npmRun(["run", "build:packages"], "inherit");
mkdirSync(out, { recursive: true });
// Packed into a folder of their own first, so a tarball left from another
// version is never picked up under the stable name.
const staging = mkdtempSync(join(tmpdir(), "act-packs-"));
try {
  const packed = JSON.parse(
    npmRun(["pack", "--json", "--pack-destination", staging, ...PACKED.flatMap((name) => ["-w", name])])
  );
  const problems = packed.flatMap((/** @type {{ filename: string }} */ { filename }) =>
    tarballProblems(filename, readTarball(join(staging, filename)), machineFolders(root))
  );
  for (const problem of problems) console.error(`pack:local: ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
  else
    for (const { name, filename } of packed) {
      const target = join(out, tarballName(name));
      copyFileSync(join(staging, filename), target);
      console.log(`pack:local: ${name} → ${target}`);
    }
} finally {
  rmSync(staging, { recursive: true, force: true });
}
