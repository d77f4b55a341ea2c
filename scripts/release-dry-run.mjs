// @ts-check
// `npm run release:dry-run` — everything a release does short of uploading:
// builds the published packages, checks their versions agree (and, with
// --expect-version X, that they are X — the release workflow passes the tag),
// packs each one with `npm pack` and checks the tarball holds what consumers
// import and nothing about the machine that built it (check-tarball.mjs: no
// absolute path in a source map, no folder of the build machine in any file),
// then runs `npm publish --dry-run` on it. `npm test` runs it as
// `npm run test:pack` (--no-build --skip-publish) right after the build.
//
// Options: --no-build (use the dist/ folders as they are),
//          --expect-version X, --skip-publish (pack only; no registry call),
//          --out DIR (keep the checked tarballs in DIR: the release workflow
//          publishes exactly those, from a job that runs none of this code).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { machineFolders, readTarball, tarballProblems } from "./check-tarball.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (/** @type {string} */ name) => argv.includes(`--${name}`);
const option = (/** @type {string} */ name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const PACKAGES = [
  {
    name: "@act-root/act",
    dir: "packages/act",
    // The `@act-root/act/testing` entry point, in both formats with types.
    entries: [
      "dist/testing/index.js",
      "dist/testing/index.cjs",
      "dist/testing/index.d.ts",
      "dist/testing/index.d.cts",
      // `@act-root/act/internal`, which the stores import.
      "dist/internal/index.js",
      "dist/internal/index.cjs",
      "dist/internal/index.d.ts",
      "dist/internal/index.d.cts",
    ],
  },
  { name: "@act-root/act-pg", dir: "packages/act-pg", entries: [] },
  { name: "@act-root/act-sqlite", dir: "packages/act-sqlite", entries: [] },
  { name: "@act-root/act-otel", dir: "packages/act-otel", entries: [] },
  { name: "@act-root/act-http", dir: "packages/act-http", entries: [] },
  {
    name: "@act-root/inspector",
    dir: "packages/inspector",
    // ES modules only (a command and its page, never `require`d): its own list.
    required: ["package.json", "README.md", "CHANGELOG.md", "dist/index.js", "dist/index.d.ts", "dist/cli.js"],
    entries: ["dist/web/index.html"],
  },
  {
    name: "create-act-app",
    dir: "packages/create-act-app",
    // Plain JavaScript run as it is (no build), and the templates it copies;
    // versions.json is what its `prepack` read from the repository.
    required: ["package.json", "README.md", "CHANGELOG.md", "bin/create-act-app.mjs", "lib/cli.mjs", "versions.json"],
    entries: [
      "templates/base/README.md",
      "templates/base/gitignore",
      "templates/base/src/todo.ts",
      "templates/sqlite/src/open-tasks.ts",
      "templates/postgres/src/open-tasks.ts",
      "templates/http/src/http.ts",
    ],
  },
];
/** Files every tarball must hold: both module formats, their types, the README and the changelog. */
const REQUIRED = [
  "package.json",
  "README.md",
  "CHANGELOG.md",
  "dist/index.js",
  "dist/index.cjs",
  "dist/index.d.ts",
  "dist/index.d.cts",
];

/** @type {string[]} */
const problems = [];
const fail = (/** @type {string} */ message) => problems.push(message);

/**
 * Runs npm; its output, or an error with what npm printed.
 *
 * @param {string[]} args
 * @param {import("node:child_process").SpawnSyncOptions} [options]
 * @returns {string}
 */
function npmRun(args, options = {}) {
  const result = spawnSync(npm, args, { cwd: root, encoding: "utf8", ...options });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    throw new Error(`npm ${args.join(" ")} exited with ${result.status}`);
  }
  return String(result.stdout);
}

if (!flag("no-build")) {
  console.log("release: building the packages");
  npmRun(["run", "build:packages"], { stdio: ["ignore", "inherit", "inherit"] });
}

const manifests = PACKAGES.map((p) => ({
  ...p,
  json: JSON.parse(readFileSync(join(root, p.dir, "package.json"), "utf8")),
}));
const versions = new Set(manifests.map((m) => m.json.version));
if (versions.size !== 1) fail(`the packages' versions differ: ${[...versions].join(", ")}`);
const expected = option("expect-version");
for (const m of manifests) {
  if (expected && m.json.version !== expected) fail(`${m.name} is ${m.json.version}, the tag says ${expected}`);
  if (m.json.private) fail(`${m.name} is marked private`);
}
const core = manifests.find((m) => m.name === "@act-root/act");
for (const store of manifests.filter((m) => m.name !== "@act-root/act")) {
  const peer = store.json.peerDependencies?.["@act-root/act"];
  if (peer && core && !peerAccepts(peer, core.json.version))
    fail(`${store.name} asks for @act-root/act ${peer}, which does not accept ${core.json.version}`);
}

/** Enough of semver for the ranges this repository uses: ^x.y.z, >=x.y.z, x.y.z. */
/**
 * @param {string} range
 * @param {string} version
 */
function peerAccepts(range, version) {
  const parse = (/** @type {string} */ v) => v.split(/[.-]/).slice(0, 3).map(Number);
  const [a, b, c] = parse(version);
  const m = /^(\^|>=)?(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
  if (!m) return true; // a range this check does not read: leave it to npm
  const [x, y, z] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const atLeast = a > x || (a === x && (b > y || (b === y && c >= z)));
  if (m[1] === ">=") return atLeast;
  if (!m[1]) return a === x && b === y && c === z;
  if (x > 0) return a === x && atLeast;
  if (y > 0) return a === 0 && b === y && atLeast;
  return a === 0 && b === 0 && c === z;
}

const keep = option("out");
if (keep) mkdirSync(resolve(keep), { recursive: true });
const out = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), "act-pack-"));
const folders = machineFolders(root);
try {
  for (const m of manifests) {
    const [packed] = JSON.parse(npmRun(["pack", "-w", m.name, "--pack-destination", out, "--json"]));
    const files = new Set(packed.files.map((/** @type {{ path: string }} */ f) => f.path));
    for (const file of [...(m.required ?? REQUIRED), ...m.entries])
      if (!files.has(file)) fail(`${m.name}: the tarball lacks ${file}`);
    for (const file of files)
      if (/^(src|test|bench)\//.test(file) || file.endsWith(".tsbuildinfo"))
        fail(`${m.name}: the tarball holds ${file}, which is not for consumers`);
    for (const problem of tarballProblems(packed.filename, readTarball(join(out, packed.filename)), folders))
      fail(problem);
    console.log(`release: ${packed.filename}: ${files.size} files, ${packed.size} bytes packed`);
    if (!flag("skip-publish")) {
      npmRun(["publish", "-w", m.name, "--dry-run", "--access", "public"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      console.log(`release: npm publish --dry-run ${m.name}@${m.json.version} passed`);
    }
  }
} finally {
  if (!keep) rmSync(out, { recursive: true, force: true });
}

if (problems.length > 0) {
  for (const p of problems) console.error(`release: ${p}`);
  process.exit(1);
}
console.log("release: ready to publish");
