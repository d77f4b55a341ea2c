// @ts-check
// npx vitest run --project site scripts/references.test.mjs — the repository stands on its own:
// no file points a reader at something outside it (a relative path that
// climbs out of the repository, a path on one machine, a working note or
// specification that is not in it, an issue number instead of the reason).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
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
