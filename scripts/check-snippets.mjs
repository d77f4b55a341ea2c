#!/usr/bin/env node
/**
 * Type-checks every TypeScript code block of the hand-written docs against
 * the packages in this repository, so no snippet can rot.
 *
 *     node scripts/check-snippets.mjs            (npm run test:snippets)
 *     node scripts/check-snippets.mjs --keep     keep the extracted files
 *     node scripts/check-snippets.mjs --docs DIR check another folder (the
 *                                                 self-test uses fixtures)
 *
 * What is checked: every fenced block whose language is `ts`, `tsx` or
 * `typescript` in `docs/**\/*.mdx` (the generated `docs/api/` is
 * skipped). Code shown from the packages with `raw-loader` + `<CodeBlock>` is
 * not a fenced block: it is type-checked where it lives, by the package's
 * own `typecheck`.
 *
 * Conventions, so snippets read naturally and still compile:
 *
 * 1. Every block is an ES module of its own, checked with the repository's
 *    compiler options (strict, NodeNext, top-level await allowed).
 *    `@act-root/act`, `@act-root/act/testing`, `@act-root/act-pg`,
 *    `@act-root/calculator` and `@act-root/wolfdesk` resolve to the
 *    packages' sources; `zod` and other dependencies resolve from the root
 *    `node_modules`.
 * 2. A block whose `title` is a file name ending in `.ts`/`.tsx` (e.g.
 *    ```ts title="src/counter.ts") is written under that name, in a folder of
 *    its own page, so later blocks on the same page can import it the way
 *    the reader would: `import { Counter } from "./counter.js"` (paths are
 *    relative to the titled file's folder, as in a real project).
 * 3. Context a reader doesn't need to see goes in an MDX comment right before
 *    the block — `{/* check: import { app } from "./app.js"; *\/}` — whose
 *    text after `check:` is prepended to the block when it is checked and
 *    never rendered. Keep it to imports and declarations.
 * 4. A block that must not be checked doesn't exist: show shell commands as
 *    `bash`, output as `text`, and pseudo-code not at all.
 *
 * A failing block is reported as `docs/<page>.mdx:<line>:<col>` pointing at
 * the line inside the MDX file, with the compiler's message; the exit code is
 * 1. A page with a syntax error in a block fails the same way.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const docsDir = resolve(option("--docs") ?? join(root, "docs"));
// Inside the repository so `zod` & co. resolve from the root node_modules;
// one folder per run, so two checks never share files.
const outDir = join(root, "node_modules", ".cache", `check-snippets-${process.pid}`);
const keep = process.argv.includes("--keep");

const LANGS = new Set(["ts", "tsx", "typescript"]);

/** Every .mdx under docs/, the generated API excluded. */
function pages(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return relative(docsDir, path) === "api" ? [] : pages(path);
    return entry.name.endsWith(".mdx") ? [path] : [];
  });
}

/**
 * The TypeScript blocks of one page: language, meta, first code line (1-based
 * in the page), code, and the hidden `check:` prelude before it, if any.
 */
function blocks(text) {
  const lines = text.split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, meta] = open;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) end++;
    if (LANGS.has(lang.toLowerCase())) {
      const code = lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join("\n");
      found.push({ lang: lang.toLowerCase(), meta, line: i + 2, code, prelude: prelude(lines, i) });
    }
    i = end;
  }
  return found;
}

/** The text of a `{/* check: … *\/}` comment ending on the lines just above `at`. */
function prelude(lines, at) {
  let j = at - 1;
  while (j >= 0 && lines[j].trim() === "") j--;
  if (j < 0 || !lines[j].trim().endsWith("*/}")) return "";
  let start = j;
  while (start >= 0 && !lines[start].includes("{/*")) start--;
  if (start < 0) return "";
  const comment = lines.slice(start, j + 1).join("\n");
  const match = /\{\/\*\s*check:([\s\S]*?)\*\/\}\s*$/.exec(comment);
  return match ? match[1].trim() : "";
}

/** The file name a block's title gives it, if the title is a .ts/.tsx path. */
function titledFile(meta) {
  const title = /title=(["'])(.*?)\1/.exec(meta)?.[2];
  return title && /\.(tsx?|mts)$/.test(title) && !title.startsWith("/") && !title.includes("..") ? title : undefined;
}


rmSync(outDir, { recursive: true, force: true });

/** Where each written file came from: file → { page, line, offset }. */
const origins = new Map();
let count = 0;
for (const page of pages(docsDir)) {
  const rel = relative(root, page);
  const folder = join(outDir, relative(docsDir, page).replace(/\.mdx$/, ""));
  for (const block of blocks(readFileSync(page, "utf8"))) {
    const ext = block.lang === "tsx" ? "tsx" : "ts";
    const name = titledFile(block.meta) ?? `snippet-line-${block.line}.${ext}`;
    const file = join(folder, name);
    const head = block.prelude ? `${block.prelude}\n` : "";
    // `export {}` keeps an import-free block a module (top-level await, own scope).
    const body = `${head}${block.code}\nexport {};\n`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
    origins.set(resolve(file), { page: rel, line: block.line, offset: head ? head.split("\n").length - 1 : 0 });
    count++;
  }
}

if (!count) {
  rmSync(outDir, { recursive: true, force: true });
  console.log(`check-snippets: no TypeScript blocks found in ${relative(root, docsDir) || "."}`);
  process.exit(0);
}

const source = (path) => join(root, "packages", path);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "package.json"), JSON.stringify({ type: "module", private: true }));
writeFileSync(
  join(outDir, "tsconfig.json"),
  JSON.stringify(
    {
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: {
        noEmit: true,
        jsx: "react-jsx",
        allowImportingTsExtensions: true,
        noUnusedLocals: false,
        paths: {
          "@act-root/act": [source("act/src/index.ts")],
          "@act-root/act/testing": [source("act/src/testing/index.ts")],
          "@act-root/act-pg": [source("act-pg/src/index.ts")],
          "@act-root/calculator": [source("calculator/src/index.ts")],
          "@act-root/wolfdesk": [source("wolfdesk/src/index.ts")],
        },
      },
      include: ["**/*.ts", "**/*.tsx"],
    },
    null,
    2
  )
);

const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const result = spawnSync(process.execPath, [tsc, "-p", join(outDir, "tsconfig.json"), "--pretty", "false"], {
  cwd: outDir,
  encoding: "utf8",
});
const output = `${result.stdout}${result.stderr}`;

/** Maps tsc's `file(line,col): error …` lines back to the MDX pages. */
const failures = [];
const other = [];
for (const line of output.split("\n").filter(Boolean)) {
  const match = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line);
  const origin = match && origins.get(resolve(outDir, match[1]));
  if (!origin) {
    // Continuation lines of a multi-line message belong to the failure above.
    if (failures.length && /^\s/.test(line)) failures[failures.length - 1] += `\n${line}`;
    else other.push(line);
    continue;
  }
  const row = Number(match[2]) - origin.offset;
  const where =
    row >= 1
      ? `${origin.page}:${origin.line + row - 1}:${match[3]}`
      : `${origin.page}:${origin.line} (in its check: comment)`;
  failures.push(`${where} ${match[4]}`);
}

if (!keep) rmSync(outDir, { recursive: true, force: true });

if (result.status === 0) {
  console.log(`check-snippets: ${count} TypeScript blocks in docs/ type-check`);
  process.exit(0);
}
console.error(`check-snippets: TypeScript blocks in docs/ do not type-check (${count} checked)\n`);
for (const failure of failures) console.error(`  ${failure}`);
if (other.length) console.error(`\n${other.map((l) => `  ${posix.normalize(l)}`).join("\n")}`);
if (keep) console.error(`\nextracted files kept in ${relative(root, outDir)}`);
process.exit(1);
