// @ts-check
// npx vitest run --project site scripts/references.test.mjs — the repository stands on its own:
// no file points a reader at something outside it (a relative path that
// climbs out of the repository, a path on one machine, a working note or
// specification that is not in it, an issue number instead of the reason),
// and no command sends a reader to the npm registry for an unscoped name of
// ours (`npx act-inspector`), which this project does not own.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "vitest";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const TEXT = /\.(c?[jt]sx?|mjs|mdx?|json|ya?ml|css|html|txt|sh)$|(^|\/)(run|Dockerfile)$/;
const SKIP = new Set(["package-lock.json", "scripts/references.test.mjs"]);

/** Things that exist only outside the repository, or that stand in for a reason. */
const OUTSIDE = [
  { pattern: /(?<![\w.-])\/work\//, what: "a path on one machine" },
  {
    pattern: /\b(site-spec\.txt|site\.md|library\.md|docs-tooling\.md)\b/,
    what: "a specification or note kept outside",
  },
  { pattern: /\bspec(ification)? ?§ ?\d/i, what: "a section of a specification kept outside" },
  { pattern: /\b(issue|ticket) #?\d+\b/i, what: "an issue number instead of the reason" },
];

const PROSE = /\.(mdx?|txt)$/;

/**
 * The part of a line a reader reads as prose: all of it in documents, the
 * comment in code (paths inside code strings are data, often test data).
 *
 * @param {string} file
 * @param {string} line
 */
function proseOf(file, line) {
  if (PROSE.test(file)) return line;
  if (/^\s*(\/\/|\/?\*|#)/.test(line)) return line;
  const at = line.indexOf(" // ");
  return at >= 0 ? line.slice(at) : "";
}

/**
 * What in `text` (of the file at `file`, relative to the repository) points outside the repository.
 *
 * @param {string} file
 * @param {string} text
 * @returns {string[]}
 */
function outsideReferences(file, text) {
  /** @type {string[]} */
  const found = [];
  text.split("\n").forEach((line, i) => {
    for (const { pattern, what } of OUTSIDE)
      if (pattern.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
    for (const [path] of proseOf(file, line).matchAll(/(?:\.\.\/)+[\w@.-][\w@./-]*/g)) {
      const target = resolve(root, dirname(file), path);
      if (relative(root, target).startsWith(".."))
        found.push(`${file}:${i + 1}: \`${path}\` climbs out of the repository: ${line.trim()}`);
    }
  });
  return found;
}

test("no tracked file points at something outside the repository", () => {
  const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && TEXT.test(f) && !SKIP.has(f));
  const found = files.flatMap((file) => outsideReferences(file, readFileSync(join(root, file), "utf8")));
  assert.deepEqual(found, []);
});

test("the check catches a climb out of the repository, a machine path, an outside note and an issue number", () => {
  assert.match(outsideReferences("docusaurus.config.ts", "// see ../shared/spec/x.txt").join(), /climbs out/);
  assert.match(outsideReferences("packages/act/src/a.ts", "// ../../../../notes.md").join(), /climbs out/);
  assert.deepEqual(outsideReferences("packages/act/src/a.ts", 'import x from "../../act-pg/src/b.js";'), []);
  assert.deepEqual(outsideReferences("scripts/a.test.mjs", 'get("/base/../../outside/secret.txt");'), []);
  assert.match(outsideReferences("docs/a.md", "[notes](../../../notes.md)").join(), /climbs out/);
  assert.match(outsideReferences("a.ts", "// as /work/main/build shows").join(), /one machine/);
  assert.match(outsideReferences("a.ts", "// the promise (site-spec.txt)").join(), /kept outside/);
  assert.match(outsideReferences("a.ts", "// required by spec §4").join(), /section/);
  assert.match(outsideReferences("a.ts", "// fixes issue #27").join(), /issue number/);
});

/**
 * Unscoped names a reader could take for ours: every workspace package's name
 * without `@act-root/`, and every command its `bin` installs. None of them is
 * registered by this project; on the registry they belong to whoever took
 * them.
 *
 * @returns {Set<string>}
 */
function ourUnscopedNames() {
  /** @type {Set<string>} */
  const names = new Set();
  for (const dir of readdirSync(join(root, "packages"))) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    names.add(String(manifest.name).replace(/^@[^/]+\//, ""));
    if (typeof manifest.bin === "string") names.add(String(manifest.name).replace(/^@[^/]+\//, ""));
    else for (const bin of Object.keys(manifest.bin ?? {})) names.add(bin);
  }
  return names;
}

/** The commands that fetch a package by name when it is not installed, and what follows them on the line. */
const RUNNERS = /(?:^|[^\w-])(?:npx|npm\s+(?:exec|x)|pnpm\s+dlx|yarn\s+dlx|bunx)\s+([^\n`|;&]*)/g;

/**
 * Commands in `text` that would run one of `ours` by its unscoped name: the
 * first word after the runner and its options, unless a `-p`/`--package`
 * option names the scoped package that provides it (`npx -p @act-root/inspector
 * act-inspector`). A `--package` naming an unscoped one of ours counts too.
 *
 * @param {string} file
 * @param {string} text
 * @param {Set<string>} ours
 * @returns {string[]}
 */
function unscopedCommands(file, text, ours) {
  /** @type {string[]} */
  const found = [];
  text.split("\n").forEach((line, i) => {
    for (const [, rest] of line.matchAll(RUNNERS)) {
      const words = rest.trim().split(/\s+/);
      /** @type {string[]} */
      const packages = [];
      let command = "";
      for (let w = 0; w < words.length; w++) {
        const word = words[w].replace(/^["']|["']$/g, "");
        if (word === "-p" || word === "--package") packages.push(words[++w]?.replace(/^["']|["']$/g, "") ?? "");
        else if (word.startsWith("--package=")) packages.push(word.slice("--package=".length));
        else if (word.startsWith("-")) continue;
        else {
          command = word;
          break;
        }
      }
      const bare = (/** @type {string} */ name) => ours.has(name.replace(/@[^@/]*$/, ""));
      const unscoped = packages.length > 0 ? packages.filter(bare) : bare(command) ? [command] : [];
      for (const name of unscoped)
        found.push(
          `${file}:${i + 1}: \`${name}\` is an unscoped name this project does not own on the registry; ` +
            `run it from its scoped package (npx -p @act-root/<package> ${command || name}): ${line.trim()}`
        );
    }
  });
  return found;
}

test("no command runs one of our packages or commands by an unscoped name the registry would resolve", () => {
  const ours = ourUnscopedNames();
  assert.ok(ours.has("act-inspector") && ours.has("act-pg"), [...ours].join(", "));
  const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && TEXT.test(f) && !SKIP.has(f));
  const found = files.flatMap((file) => unscopedCommands(file, readFileSync(join(root, file), "utf8"), ours));
  assert.deepEqual(found, []);
});

test("the command check catches every runner and option spelling, and passes the scoped forms", () => {
  const ours = new Set(["act-inspector", "inspector", "act-pg"]);
  for (const bad of [
    "npx act-inspector --pg postgres://x",
    "ACT_INSPECTOR_PG=postgres://x npx act-inspector",
    "npx --yes act-inspector",
    "npx -y act-inspector@latest --sqlite ./e.db",
    "`npx act-inspector`",
    "npm exec act-inspector",
    "npm x -- act-inspector",
    "pnpm dlx act-inspector",
    "yarn dlx act-pg",
    "bunx act-inspector",
    "npx -p act-inspector act-inspector",
    "npx --package=inspector act-inspector",
  ])
    assert.match(
      unscopedCommands("docs/a.mdx", bad, ours).join(),
      /docs\/a\.mdx:1: `[\w@.-]+` is an unscoped name/,
      bad
    );
  for (const good of [
    "npx -p @act-root/inspector act-inspector --sqlite ./events.db",
    "npx --package @act-root/inspector act-inspector",
    "npx --package=@act-root/inspector act-inspector",
    "npx @act-root/inspector",
    "npx vitest run --project site",
    "npx tsx app.ts",
    "act-inspector --pg postgres://x",
    "cd act-root && npm ci && npm run pack:local",
  ])
    assert.deepEqual(unscopedCommands("docs/a.mdx", good, ours), [], good);
  assert.match(unscopedCommands("a.md", "one\ntwo: npx act-pg\n", ours).join(), /^a\.md:2: /);
});
