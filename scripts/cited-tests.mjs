// @ts-check
// The docs prove their promises by naming tests: a path to a test file
// followed by the quoted names of its tests (`packages/act/test/x.test.ts`
// "refuses …"), or `store conformance "…"` for the suite every store runs.
// A test renamed or deleted leaves such a sentence pointing at nothing, and
// the promise it backs unproven while every test stays green; this finds
// each citation and says which name no longer names a test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A test file's path in backticks, as the docs write it (relative to the repository root). */
const PATH =
  /`((?:packages|scripts|e2e)\/[\w./-]+\.(?:test|suite|model|spec|conformance)\.[cm]?[tj]sx?|packages\/[\w./-]+\/testing\/[\w-]+\.ts)`/g;
/** The conformance suites every store runs, as the docs call them. */
const CONFORMANCE = /store conformance(?: \([^)]*\))?/g;
/** A quoted test name (straight or typographic quotes). */
const QUOTED = /"([^"\n]+(?:\n[^"\n]+)*)"|“([^”]+)”/g;

/** Whitespace as one space: names are wrapped across lines in prose. */
const flat = (/** @type {string} */ text) => text.replace(/\s+/g, " ").trim();

/** Every `.md`/`.mdx` file under `dir`. */
function pages(/** @type {string} */ dir) {
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...pages(path));
    else if (/\.mdx?$/.test(entry.name)) found.push(path);
  }
  return found;
}

/**
 * The citations of one page: for each test file (or the conformance suites)
 * it names, the quoted names that follow it — up to the next citation, the
 * end of a table cell or a blank line.
 * @param {string} text
 * @returns {{ file: string | "conformance", name: string, line: number }[]}
 */
export function citations(text) {
  /** @type {{ at: number, end: number, file: string }[]} */
  const anchors = [];
  for (const m of text.matchAll(PATH)) anchors.push({ at: m.index, end: m.index + m[0].length, file: m[1] });
  for (const m of text.matchAll(CONFORMANCE))
    anchors.push({ at: m.index, end: m.index + m[0].length, file: "conformance" });
  anchors.sort((a, b) => a.at - b.at);
  /** @type {{ file: string, name: string, line: number }[]} */
  const found = [];
  anchors.forEach((anchor, i) => {
    const next = anchors[i + 1]?.at ?? text.length;
    let span = text.slice(anchor.end, next);
    // A cell ends at `|`, a paragraph at a blank line; a closing bracket ends a parenthesis.
    const stop = span.search(/\||\n\s*\n|\)\./);
    if (stop >= 0) span = span.slice(0, stop);
    for (const q of span.matchAll(QUOTED)) {
      const name = flat(q[1] ?? q[2] ?? "");
      // Only what reads as a test's name: a few words, not a value like "x" or a JSON key.
      if (name.split(" ").length < 3) continue;
      const line = text.slice(0, anchor.end + (q.index ?? 0)).split("\n").length;
      found.push({ file: anchor.file, name, line });
    }
  });
  return found;
}

/** The titles a test file gives (`describe`, `it`, `test`), and each title inside a `describe` prefixed by it. */
function titles(/** @type {string} */ source) {
  const found = [
    ...source.matchAll(/\b(describe|it|test)(?:\.\w+)*(?:\([^()]*\))?\(\s*(["'`])((?:(?!\2)[^\\]|\\.)*)\2/g),
  ].map((m) => ({ kind: m[1], title: flat(m[3]) }));
  const groups = found.filter((t) => t.kind === "describe").map((t) => t.title);
  return [...found.map((t) => t.title), ...groups.flatMap((group) => found.map((t) => `${group} ${t.title}`))];
}

/** Whether each part of `name` (split where the docs shortened it) appears in `text`, in order. */
function inOrder(/** @type {string} */ text, /** @type {string} */ name) {
  const parts = name
    .split(/…|%[sdi]|\$\{[^}]*\}|\.\.\./)
    .map((part) =>
      part
        .trim()
        .replace(/^\(|\)$/g, "")
        .trim()
    )
    .filter((part) => part.length >= 3);
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return parts.length > 0;
}

/**
 * Whether `source` holds a test named `name`: a title of its own, or a
 * `describe` title and a test title inside it read as one (as the test
 * runner prints them); a name the docs shortened with "…" or a parameter
 * (`%s`, `${…}`) matches when each part appears, in order.
 * @param {string} source
 * @param {string} name
 */
export function names(source, name) {
  return titles(source).some((title) => inOrder(title, name)) || inOrder(flat(source), name);
}

/**
 * Every citation under `docsDir` whose file is missing or does not hold the
 * quoted name, as "page:line: what".
 * @param {string} root - the repository root
 * @param {string} docsDir - the pages to read
 * @returns {{ problems: string[], checked: number }}
 */
export function uncitedProblems(root, docsDir) {
  const testing = join(root, "packages", "act", "src", "testing");
  const conformance = readdirSync(testing)
    .filter((file) => file.endsWith("-conformance.ts"))
    .map((file) => readFileSync(join(testing, file), "utf8"))
    .join("\n");
  /** @type {Map<string, string | undefined>} */
  const sources = new Map();
  const source = (/** @type {string} */ file) => {
    if (!sources.has(file)) {
      const path = join(root, file);
      sources.set(file, existsSync(path) ? readFileSync(path, "utf8") : undefined);
    }
    return sources.get(file);
  };
  const problems = [];
  let checked = 0;
  for (const page of pages(docsDir)) {
    const where = relative(root, page);
    for (const { file, name, line } of citations(readFileSync(page, "utf8"))) {
      checked++;
      const text = file === "conformance" ? conformance : source(file);
      if (text === undefined) problems.push(`${where}:${line}: cites ${file}, which does not exist`);
      else if (!names(text, name))
        problems.push(
          `${where}:${line}: cites "${name}" in ${file === "conformance" ? "the store conformance suites" : file}, which has no test of that name`
        );
    }
  }
  return { problems, checked };
}
