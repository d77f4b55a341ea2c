#!/usr/bin/env node
/**
 * Type-checks every TypeScript code block of the hand-written docs against
 * the packages in this repository, so no snippet can rot, RUNS every one of
 * them, and compares what the blocks that show their output print (5 and 6
 * below).
 *
 *     node scripts/check-snippets.mjs            (npm run test:snippets)
 *     node scripts/check-snippets.mjs --keep     keep the extracted files
 *     node scripts/check-snippets.mjs --docs DIR check another folder (the
 *                                                 self-test uses fixtures)
 *     node scripts/check-snippets.mjs --packs DIR use the tarballs pack:local
 *                                                 already wrote to DIR
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
 *    compiler options (strict, NodeNext, top-level await allowed), in a
 *    folder outside the repository whose `node_modules` holds what a reader
 *    installs (snippet-install.mjs), and nothing else:
 *    - `@act-root/*`: the published packages (every workspace package not
 *      marked private), packed by `npm run pack:local` and unpacked as
 *      `npm install` would — their built `dist`, their `exports` as shipped
 *      (`npm run build:packages` first; the check says so if a tarball lacks
 *      its entry point). A block that imports a private package (the example
 *      apps) or an unknown one fails, naming the page, the line and the
 *      package: a reader cannot install it, so the page must show the code
 *      it needs (a titled block, see 2).
 *    - `zod`, `pg`, `vitest`, … : the third-party packages the blocks import
 *      and the published packages depend on, with their `@types/…`,
 *      `@types/node` and `tsx` — links to the root `node_modules`, so at the
 *      lockfile's versions. A package the lockfile does not hold fails, with
 *      the page and line: add it to the root devDependencies.
 *    The summary line says how long packing and installing took.
 * 2. A block whose `title` is a file name ending in `.ts`/`.tsx` (e.g.
 *    ```ts title="src/counter.ts") is written under that name, in a folder of
 *    its own page, so later blocks on the same page can import it the way
 *    the reader would: `import { Counter } from "./counter.js"` (paths are
 *    relative to the titled file's folder, as in a real project).
 * 3. Context a reader doesn't need to see goes in an MDX comment right before
 *    the block — `{/* check: import { app } from "./app.js"; *\/}` — whose
 *    text after `check:` is prepended to the block when it is checked and
 *    never rendered. Keep it to imports and declarations — and, for a block
 *    that shows output, the steps an earlier block of the page already
 *    showed the reader (each block runs on its own, with an empty store).
 * 4. A block that must not be checked doesn't exist: show shell commands as
 *    `bash`, output as `text`, and pseudo-code not at all. A `text` block is
 *    either checked output (an Output block, see 5; or, on a page the reader
 *    test follows, right after a `bash` block) or says it is illustrative in
 *    its title (```text title="What it prints (illustrative)"); anything
 *    else is an error.
 *    The one exception is another library's code, which a migration guide
 *    shows beside ours: its packages are not installed here, so it can be
 *    neither type-checked nor run. Such a block names the package in its
 *    meta — ```ts title="Before (Emmett)" other="@event-driven-io/emmett" —
 *    and is skipped, so the page must say it is not checked. The marker
 *    cannot hide one of ours: the block must import the package it names,
 *    and must not import `@act-root/*`; either is an error. The summary line
 *    counts these blocks.
 *
 * A failing block is reported as `docs/<page>.mdx:<line>:<col>` pointing at
 * the line inside the MDX file, with the compiler's message; the exit code is
 * 1. A page with a syntax error in a block fails the same way.
 *
 * Snippets that show their output are also RUN, so a page cannot claim a
 * result the library does not give. A block shows its output in one of two
 * ways:
 *
 * 5. An output block: a fenced ```text title="Output" block directly after
 *    the `ts` block (nothing but blank lines between) is everything the
 *    block prints to stdout. The lines are compared one by one after
 *    trailing whitespace is trimmed (trailing blank lines are ignored). An
 *    Output block anywhere else is an error: it would claim unchecked output.
 * 6. A result comment: on a line that calls `console.log(...)`, a trailing
 *    comment after the closing parenthesis — `console.log(x); // 3` — is
 *    exactly what that call prints, written as console.log prints it:
 *    strings without quotes, objects and arrays as `util.inspect` shows them
 *    (`{ sku: 'tea', quantity: 2 }`, `[ 'a', 'b' ]`). Runs of whitespace
 *    count as one space, so a long object printed over several lines may be
 *    written on one. The call must run at least once, and every time it
 *    runs it must print that text. So any comment on such a line is a
 *    claim: an explanation goes on a line of its own above the call. A
 *    comment line starting `// →` or `// =>` (a result nothing checks) is
 *    an error; log the expression instead.
 *
 * How a block is run: its file (with the `check:` prelude, in its page's
 * folder beside the page's titled files, exactly as type-checked) is copied,
 * the claimed `console.log` calls are rewritten to record what they print
 * (scripts/snippet-log.mjs), and the copy runs in a child process of its own
 * — `node --import tsx`, NODE_ENV=test, at most 30 s, and it must end by
 * itself, as it would for a reader. It resolves packages as the type-check
 * does (1): the unpacked tarballs and the linked third-party packages. A
 * run that fails, throws or prints something else is reported as
 * `docs/<page>.mdx:<line>` with the expected and the actual text. A block
 * that imports an unpublished package is not run: it failed already.
 *
 * Every other block runs the same way and must end by itself with exit code
 * 0, two at a time:
 *
 * - A block that needs PostgreSQL (it mentions `act-pg`, `PostgresStore`,
 *   `PgCatalog` or `DATABASE_URL`) gets an empty database of its own on the
 *   server `DATABASE_URL` names, or else on a disposable server started with
 *   the act-pg tests' helper; `DATABASE_URL` and the `PG*` variables point at
 *   it.
 * - A block written for vitest (it or its prelude imports from "vitest")
 *   runs as a test file, all of them in one `vitest run`; a block of hooks
 *   only gets one empty test so its hooks run.
 * - Every `sql` block runs on an empty database of its own on that server,
 *   after `PostgresStore.seed()` created the tables of each schema it names
 *   (`shop.events`) and after its hidden `{/* check: … *\/}` SQL (e.g. a role
 *   it grants to). A block titled with `seed()` is the page's claim of what
 *   `seed()` runs: it must create exactly the columns and indexes `seed()`
 *   creates.
 * - `NOT_RUN` below lists the few blocks that cannot run here, each with the
 *   reason (a server or worker that runs until stopped, a collector the
 *   checks do not start); they are still type-checked.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PACKED, packLocal, tarballName } from "./pack-local.mjs";
import { importProblems, installForReader, packageImports } from "./snippet-install.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const docsDir = resolve(option("--docs") ?? join(root, "docs"));
// Outside the repository, so nothing resolves from the root node_modules (it
// links every workspace package, the private ones too): the folder's own
// node_modules holds what a reader installs (snippet-install.mjs). One folder
// per run, so two checks never share files.
const outDir = join(tmpdir(), `check-snippets-${process.pid}`);
/** Tarballs already packed (named as pack:local names them), instead of packing. */
const packsDir = option("--packs");
const rootModules = join(root, "node_modules");
const keep = process.argv.includes("--keep");

const LANGS = new Set(["ts", "tsx", "typescript"]);
/** Pages `npm run test:reader` follows command by command, comparing the output after each `bash` block. */
const READER_PAGES = ["guides/getting-started.mdx"];

/** Every .mdx under docs/, the generated API excluded. */
function pages(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return relative(docsDir, path) === "api" ? [] : pages(path);
    return entry.name.endsWith(".mdx") ? [path] : [];
  });
}

/** A fence opening line: indent, fence, language, meta. */
const FENCE = /^(\s*)(`{3,}|~{3,})(\S*)\s*(.*)$/;
/** A `text` block titled "Output". */
const isOutput = (lang, meta) => lang.toLowerCase() === "text" && /title=(["'])Output\1/.test(meta);
/** A result comment after a console.log call: `console.log(...); // text`. */
const RESULT = /console\.log\(.*\)\s*;?\s+\/\/\s?(.*?)\s*$/;
/** The old `// → value` style, which nothing checks. */
const ARROW = /^\s*\/\/\s*(→|=>)/;

/**
 * The TypeScript blocks of one page: language, meta, first code line (1-based
 * in the page), code, the hidden `check:` prelude before it, if any, and what
 * the page claims it prints: `output` (the Output block's lines and first
 * line) and `results` (page line → the text a result comment claims).
 * `problems` lists claims the page makes in a form nothing could check.
 */
function blocks(text, reader = false) {
  const lines = text.split("\n");
  /** The blocks to check; `other` counts the blocks of another library, which are not. */
  const found = Object.assign([], { other: 0 });
  const problems = [];
  /** Index of the closing fence of the block opened at `i`. */
  const close = (i, fence) => {
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) end++;
    return end;
  };
  const strip = (from, to, indent) =>
    lines.slice(from, to).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, meta] = open;
    let end = close(i, fence);
    if (isOutput(lang, meta))
      problems.push({
        line: i + 1,
        message: "an Output block must follow a `ts` block directly (only blank lines between)",
      });
    else if (lang.toLowerCase() === "text" && !/illustrative/i.test(meta) && !(reader && afterBash(lines, i)))
      problems.push({
        line: i + 1,
        message:
          'a `text` block claims output nothing checks: show it as the Output of a `ts` block, or title it as illustrative (```text title="… (illustrative)")',
      });
    const other = /\bother=(["'])(.*?)\1/.exec(meta)?.[2];
    if (LANGS.has(lang.toLowerCase()) && other !== undefined) {
      const problem = otherLibraryProblem(other, lines.slice(i + 1, end).join("\n"));
      if (problem) problems.push({ line: i + 1, message: problem });
      else found.other++;
    } else if (LANGS.has(lang.toLowerCase())) {
      const codeLines = strip(i + 1, end, indent);
      const block = {
        lang: lang.toLowerCase(),
        meta,
        line: i + 2,
        code: codeLines.join("\n"),
        prelude: prelude(lines, i),
        results: new Map(),
      };
      codeLines.forEach((line, k) => {
        const result = RESULT.exec(line);
        if (result) block.results.set(block.line + k, result[1]);
        else if (ARROW.test(line))
          problems.push({
            line: block.line + k,
            message:
              "a `// → value` comment is not checked: log the value, `console.log(x); // value`, or show an Output block",
          });
      });
      // An Output block right after (only blank lines between) belongs to this block.
      let next = end + 1;
      while (next < lines.length && lines[next].trim() === "") next++;
      const after = FENCE.exec(lines[next] ?? "");
      if (after && isOutput(after[3], after[4])) {
        const outEnd = close(next, after[2]);
        block.output = { line: next + 2, lines: strip(next + 1, outEnd, after[1]) };
        end = outEnd;
      }
      found.push(block);
    }
    i = end;
  }
  return { found, problems };
}

/**
 * Why a block marked `other="<package>"` (another library's code, see 4)
 * may not be skipped, or `undefined`: it must import the package it names
 * and nothing of ours, so the marker cannot hide a block of Act's.
 */
function otherLibraryProblem(name, code) {
  const imported = packageImports(code).map((i) => i.name);
  if (imported.some((n) => n.startsWith("@act-root/")))
    return `a block marked other="${name}" imports @act-root: it is Act's code, which must be checked — drop the marker`;
  if (!imported.includes(name))
    return `a block marked other="${name}" does not import "${name}": the marker is for another library's code, which imports it`;
  return undefined;
}

/**
 * Whether the block opening at `at` directly follows a `bash` block (blank
 * lines between): on a page the reader test follows command by command
 * (scripts/check-getting-started.mjs), that is output it compares.
 */
function afterBash(lines, at) {
  let j = at - 1;
  while (j >= 0 && lines[j].trim() === "") j--;
  if (j < 0 || !/^\s*`{3,}\s*$/.test(lines[j])) return false;
  let open = j - 1;
  while (open >= 0 && !FENCE.exec(lines[open])) open--;
  return open >= 0 && FENCE.exec(lines[open])[3] === "bash";
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

const harness = pathToFileURL(join(root, "scripts", "snippet-log.mjs")).href;
const RUN_TIMEOUT_MS = 30_000;
/** Snippets run two at a time: the machines that run the checks have two cores. */
const PARALLEL = 2;

/**
 * Blocks that are type-checked but not run, each with the reason: found by
 * page and a piece of their code, so the list survives edits around them.
 * Keep it short — a block that can run, runs.
 */
const NOT_RUN = [
  {
    page: "concepts/configuration.mdx",
    contains: "createServer((_, res)",
    reason: "a server: it listens until the process is stopped",
  },
  { page: "concepts/event-sourcing.mdx", contains: "app.start();", reason: "a worker: it drains until stopped" },
  {
    page: "concepts/reactions-in-production.mdx",
    contains: "// worker.ts",
    reason: "a worker: it drains until stopped",
  },
  {
    page: "guides/sqlite.mdx",
    contains: "app.start(); // drains now",
    reason: "a worker: it drains until stopped",
  },
  {
    page: "guides/observability.mdx",
    contains: 'from "./telemetry.js"',
    reason: "exports to a Jaeger/OTLP collector on localhost:4318, which the checks do not run",
  },
  {
    page: "guides/inspector.mdx",
    contains: "inspect(app, {",
    reason: "starts the inspector's HTTP server, which serves until stopped",
  },
  {
    page: "guides/projections.mdx",
    contains: "}).listen(3000);",
    reason: "a server: it listens until the process is stopped",
  },
  {
    page: "guides/testing.mdx",
    contains: "new MongoStore(",
    reason: "the store it tests is the reader's own (MongoStore is not part of Act)",
  },
];
const notRun = (page, block) =>
  NOT_RUN.find((entry) => page.endsWith(entry.page) && `${block.prelude}\n${block.code}`.includes(entry.contains));
/** A block that needs PostgreSQL gets a database of its own on the test server. */
const needsPostgres = (block) => /act-pg|PostgresStore|PgCatalog|DATABASE_URL/.test(`${block.prelude}\n${block.code}`);
/** A block written for vitest (it imports from "vitest") runs as a test file. */
const isVitest = (block) => /from ["']vitest["']/.test(`${block.prelude}\n${block.code}`);

/** The environment of every run: NODE_ENV=test, none of the caller's Act settings. */
function childEnv() {
  const env = { ...process.env, NODE_ENV: "test" };
  for (const name of [
    "LOG_LEVEL",
    "SLEEP_MS",
    "NODE_OPTIONS",
    "DATABASE_URL",
    "PGHOST",
    "PGPORT",
    "PGUSER",
    "PGPASSWORD",
    "PGDATABASE",
  ])
    delete env[name];
  return env;
}

/** spawnSync's result, without blocking the other runs: stdout, stderr, status, signal, timedOut. */
function spawnAsync(command, args, { cwd, env, timeout = RUN_TIMEOUT_MS }) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeout);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      done({ stdout, stderr, status, signal, timedOut });
    });
  });
}

/** Runs `work` over `items`, `PARALLEL` at a time, results in order. */
async function pool(items, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at], at);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}
/** Text as compared: runs of whitespace are one space, no space at the ends. */
const squeeze = (text) => text.replace(/\s+/g, " ").trim();
/** Lines as compared: no trailing whitespace, no trailing blank lines. */
const trimLines = (lines) => {
  const out = lines.map((line) => line.trimEnd());
  while (out.length && out.at(-1) === "") out.pop();
  return out;
};
/** The first lines of a text, indented, for a failure message. */
const quote = (lines) => {
  const shown = lines.slice(0, 40).map((line) => `    | ${line}`);
  if (lines.length > 40) shown.push(`    | … (${lines.length - 40} more lines)`);
  return shown.length ? shown.join("\n") : "    (nothing)";
};

/**
 * Runs one block that shows its output (see 5 and 6 above) and returns what
 * disagrees with the page, as `page:line` messages.
 */
async function execute({ page, file, head, block }, extraEnv = {}) {
  // Each claimed console.log records what it prints under its page line.
  const code = block.code
    .split("\n")
    .map((line, k) =>
      block.results.has(block.line + k)
        ? line.replace(/console\.log\((?!.*console\.log\()/, `__logAt(${block.line + k})(`)
        : line
    )
    .join("\n");
  const entry = join(dirname(file), `__run-line-${block.line}-${basename(file)}`);
  writeFileSync(entry, `${head}${code}\nexport {};\nimport { logAt as __logAt } from ${JSON.stringify(harness)};\n`);
  const logFile = `${entry}.json`;
  const env = {
    ...childEnv(),
    ...extraEnv,
    SNIPPET_LOG_FILE: logFile,
    TSX_TSCONFIG_PATH: join(outDir, "tsconfig.run.json"),
  };
  const run = await spawnAsync(process.execPath, ["--import", "tsx", entry], { cwd: outDir, env });
  const where = `${page}:${block.line}`;
  if (run.timedOut)
    return [
      `${where} did not finish within ${RUN_TIMEOUT_MS / 1000} s (a snippet must end by itself, or be allow-listed with the reason)\n  printed:\n${quote(trimLines(run.stdout.split("\n")))}`,
    ];
  if (run.status !== 0)
    return [
      `${where} failed when run (exit ${run.status ?? run.signal})\n  stderr:\n${quote(trimLines(run.stderr.split("\n")))}`,
    ];
  const problems = [];
  if (block.output) {
    const expected = trimLines(block.output.lines);
    const actual = trimLines(run.stdout.split("\n"));
    const at = expected.findIndex((line, k) => line !== actual[k]);
    const differs = at >= 0 ? at : expected.length < actual.length ? expected.length : -1;
    if (differs >= 0)
      problems.push(
        `${page}:${block.output.line + differs} the Output block differs from what the snippet at line ${block.line} prints\n` +
          `  expected: ${JSON.stringify(expected[differs] ?? "(end of output)")}\n` +
          `  actual:   ${JSON.stringify(actual[differs] ?? "(end of output)")}\n  printed:\n${quote(actual)}`
      );
  }
  // (TypeScript drops an unused import, so a run without claimed calls writes no file.)
  const printed = existsSync(logFile) ? JSON.parse(readFileSync(logFile, "utf8")) : {};
  for (const [line, claim] of block.results) {
    const texts = printed[line] ?? [];
    if (!texts.length)
      problems.push(
        `${page}:${line} this console.log never ran, so it printed nothing\n  expected: ${JSON.stringify(claim)}`
      );
    const wrong = texts.find((text) => squeeze(text) !== squeeze(claim));
    if (wrong !== undefined)
      problems.push(
        `${page}:${line} the comment is not what this console.log prints\n  expected: ${JSON.stringify(claim)}\n  actual:   ${JSON.stringify(squeeze(wrong))}`
      );
  }
  return problems;
}

/**
 * PostgreSQL for the blocks that need it: the server `DATABASE_URL` names, or
 * a disposable one started with the act-pg tests' helper. `database(name)`
 * creates an empty database and returns the environment a block runs with:
 * `DATABASE_URL` and the `PG*` variables point at it, so `new PostgresStore()`
 * and `{ connectionString: process.env.DATABASE_URL }` both find it.
 */
async function startPostgres() {
  let server;
  let url = process.env.DATABASE_URL;
  if (!url) {
    const { tsImport } = await import("tsx/esm/api");
    const { startServer } = await tsImport("../packages/act-pg/tools/pg-server.ts", import.meta.url);
    server = await startServer();
    url = server.url;
  }
  const { default: pg } = await import("pg");
  const created = [];
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const envOf = (name) => {
    const at = new URL(url);
    at.pathname = `/${name}`;
    return {
      DATABASE_URL: at.href,
      PGHOST: at.hostname,
      PGPORT: at.port || "5432",
      PGUSER: decodeURIComponent(at.username || "postgres"),
      ...(at.password && { PGPASSWORD: decodeURIComponent(at.password) }),
      PGDATABASE: name,
    };
  };
  return {
    async database(name) {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(`CREATE DATABASE ${name}`);
      created.push(name);
      return envOf(name);
    },
    async stop() {
      if (server) return server.stop();
      for (const name of created) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    },
  };
}

/** The `sql` blocks of a page: first code line, code, title, and the hidden `check:` SQL to run first. */
function sqlBlocks(text) {
  const lines = text.split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end].trim() !== open[2]) end++;
    if (open[3].toLowerCase() === "sql")
      found.push({
        line: i + 2,
        code: lines.slice(i + 1, end).join("\n"),
        title: /title=(["'])(.*?)\1/.exec(open[4])?.[2] ?? "",
        prelude: prelude(lines, i),
      });
    i = end;
  }
  return found;
}

/** Statements one by one (so `CREATE INDEX CONCURRENTLY` runs outside a transaction). */
const statements = (sql) =>
  sql
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter(Boolean);

/**
 * Runs one `sql` block on an empty database of its own. The tables it names
 * (`shop.events`, `public.events`) are first created by `PostgresStore.seed()`
 * (the built act-pg) for each schema it names, then its `check:` prelude runs,
 * then its statements. A block titled "… seed() …" is instead the page's
 * claim of what `seed()` runs: run alone, it must create exactly the columns
 * and indexes `seed()` creates.
 */
async function runSql({ page, block }, k, postgres) {
  const { default: pg } = await import("pg");
  const { PostgresStore } = await import(pathToFileURL(join(root, "packages", "act-pg", "dist", "index.js")).href);
  const where = `${page}:${block.line}`;
  const connect = async (env) => {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    client.on("error", () => {});
    await client.connect();
    return client;
  };
  const seedOf = async (env, schema) => {
    const s = new PostgresStore({ connectionString: env.DATABASE_URL, schema });
    try {
      await s.seed();
    } finally {
      await s.dispose();
    }
  };
  /** Columns and indexes of every schema but the system ones, comparable across databases. */
  const describe = async (client) => {
    const columns = await client.query(
      `SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`
    );
    const indexes = await client.query(
      `SELECT schemaname, tablename, indexname, indexdef FROM pg_indexes
       WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`
    );
    return [...columns.rows, ...indexes.rows].map((row) => JSON.stringify(row));
  };
  const env = await postgres.database(`snippet_sql_${k}`);
  const claimsSeed = /\bseed\(\)/.test(block.title);
  if (!claimsSeed)
    for (const schema of new Set([...block.code.matchAll(/\b(\w+)\.events\b/g)].map((m) => m[1])))
      await seedOf(env, schema);
  const client = await connect(env);
  try {
    for (const statement of [...statements(block.prelude), ...statements(block.code)]) {
      try {
        await client.query(statement);
      } catch (error) {
        return [`${where} failed on PostgreSQL: ${error.message}\n  in: ${statement.split("\n")[0]}`];
      }
    }
    if (!claimsSeed) return [];
    const shown = await describe(client);
    const seeded = await postgres.database(`snippet_sql_${k}_seed`);
    await seedOf(seeded, undefined);
    const other = await connect(seeded);
    const actual = await describe(other).finally(() => other.end());
    const missing = actual.filter((row) => !shown.includes(row));
    const extra = shown.filter((row) => !actual.includes(row));
    if (!missing.length && !extra.length) return [];
    return [
      `${where} is not what seed() creates\n` +
        missing.map((row) => `  seed() creates, the page lacks: ${row}`).join("\n") +
        extra.map((row) => `\n  the page creates, seed() does not: ${row}`).join(""),
    ];
  } finally {
    await client.end();
  }
}

/**
 * Runs the blocks written for vitest as test files, in one vitest run: each
 * block's file (with its prelude) is copied beside it as
 * `__vitest-line-<n>.test.ts`; a block of hooks only gets one empty test, so
 * its hooks run. A database a block names (`database: "shop_test"`) is
 * created on the test server first. Returns the failures as `page:line`.
 */
async function runVitest(list, postgres) {
  const files = new Map();
  let env = {};
  for (const run of list) {
    const copy = join(dirname(run.file), `__vitest-line-${run.block.line}.test.ts`);
    const hooksOnly = !/\b(it|test)\(/.test(run.block.code);
    writeFileSync(
      copy,
      `${run.head}${run.block.code}\n${hooksOnly ? 'import { it as __it } from "vitest";\n__it("runs the hooks above", () => {});\n' : ""}export {};\n`
    );
    files.set(resolve(copy), run);
    if (needsPostgres(run.block))
      for (const [, name] of run.block.code.matchAll(/database: "(\w+)"/g)) env = await postgres.database(name);
  }
  const config = join(outDir, "vitest.snippets.config.mjs");
  const report = join(outDir, "vitest-report.json");
  writeFileSync(
    config,
    `export default { test: { root: ${JSON.stringify(outDir)}, include: ["**/__vitest-line-*.test.ts"], exclude: [], testTimeout: ${RUN_TIMEOUT_MS}, server: { deps: { inline: [/check-snippets-/] } } } };\n`
  );
  const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
  const run = await spawnAsync(
    process.execPath,
    [vitest, "run", "--config", config, "--reporter=json", `--outputFile=${report}`],
    { cwd: outDir, env: { ...childEnv(), ...env }, timeout: 3 * RUN_TIMEOUT_MS }
  );
  if (!existsSync(report))
    return [
      `vitest did not run the testing blocks (exit ${run.status ?? run.signal})\n  stderr:\n${quote(trimLines(run.stderr.split("\n")))}`,
    ];
  const problems = [];
  const seen = new Set();
  for (const result of JSON.parse(readFileSync(report, "utf8")).testResults) {
    const origin = files.get(resolve(result.name));
    if (!origin) continue;
    seen.add(origin);
    const failed = result.assertionResults.filter((test) => test.status !== "passed");
    if (result.status === "passed" && !failed.length) continue;
    const messages = failed.length
      ? failed.map((test) => `${test.title}: ${test.failureMessages.join("\n")}`)
      : [result.message];
    problems.push(
      `${origin.page}:${origin.block.line} failed as a vitest test\n${quote(trimLines(messages.join("\n").split("\n")))}`
    );
  }
  for (const origin of files.values())
    if (!seen.has(origin)) problems.push(`${origin.page}:${origin.block.line} vitest did not run this block`);
  return problems;
}

rmSync(outDir, { recursive: true, force: true });

/** Where each written file came from: file → { page, line, offset }. */
const origins = new Map();
/** Blocks to run once they are all written; those written for vitest; those not run, with why. */
const runs = [];
const vitestRuns = [];
const skipped = [];
const sqlRuns = [];
/** Claims about output that could not be checked, and runs that disagree. */
const claims = [];
/** The third-party packages the blocks import, installed for them as a reader would. */
const thirdParty = new Set();
/** Imports of packages a reader could not install. */
const uninstallable = [];
let count = 0;
/** Blocks of another library's code (see 4), shown but not checked. */
let otherCount = 0;
for (const page of pages(docsDir)) {
  const rel = relative(root, page);
  const folder = join(outDir, relative(docsDir, page).replace(/\.mdx$/, ""));
  const text = readFileSync(page, "utf8");
  const { found, problems } = blocks(text, READER_PAGES.includes(relative(docsDir, page)));
  for (const block of sqlBlocks(text)) sqlRuns.push({ page: rel, block });
  for (const problem of problems) claims.push(`${rel}:${problem.line} ${problem.message}`);
  otherCount += found.other;
  for (const block of found) {
    const ext = block.lang === "tsx" ? "tsx" : "ts";
    const name = titledFile(block.meta) ?? `snippet-line-${block.line}.${ext}`;
    const file = join(folder, name);
    const head = block.prelude ? `${block.prelude}\n` : "";
    // `export {}` keeps an import-free block a module (top-level await, own scope).
    const body = `${head}${block.code}\nexport {};\n`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
    origins.set(resolve(file), { page: rel, line: block.line, offset: head ? head.split("\n").length - 1 : 0 });
    for (const { name } of packageImports(`${block.prelude}\n${block.code}`))
      if (!name.startsWith("@act-root/")) thirdParty.add(name);
    const unavailable = importProblems({ page: rel, ...block }, { published: PACKED, rootModules });
    uninstallable.push(...unavailable);
    const skip = notRun(rel, block);
    if (skip) skipped.push(`${rel}:${block.line} ${skip.reason}`);
    // A block a reader could not install fails already; running it would only repeat that.
    else if (!unavailable.length)
      (isVitest(block) && !block.output && !block.results.size ? vitestRuns : runs).push({
        page: rel,
        file,
        head,
        block,
      });
    count++;
  }
}

if (!count) {
  rmSync(outDir, { recursive: true, force: true });
  if (claims.length) {
    for (const claim of claims) console.error(`  ${claim}`);
    process.exit(1);
  }
  console.log(`check-snippets: no TypeScript blocks found in ${relative(root, docsDir) || "."}`);
  process.exit(0);
}

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "package.json"), JSON.stringify({ type: "module", private: true }));
// What a reader installs: the packed packages and the third-party ones the blocks import.
const installStarted = performance.now();
try {
  const tarballs = packsDir
    ? new Map(PACKED.map((name) => [name, join(resolve(packsDir), tarballName(name))]))
    : packLocal(join(outDir, ".packs"), { build: false, quiet: true });
  installForReader(join(outDir, "node_modules"), { tarballs, thirdParty, rootModules });
} catch (error) {
  rmSync(outDir, { recursive: true, force: true });
  console.error(
    `check-snippets: cannot install the published packages for the snippets\n  ${String(error instanceof Error ? error.message : error).replaceAll("\n", "\n  ")}`
  );
  process.exit(1);
}
const installSeconds = ((performance.now() - installStarted) / 1000).toFixed(1);

// Type-checked and run with the same resolution: through node_modules, to
// the packages' built `dist` as the tarballs hold it.
/** @type {[string, object][]} */
const tsconfigs = [
  ["tsconfig.json", { noEmit: true, noUnusedLocals: false }],
  ["tsconfig.run.json", {}],
];
for (const [name, extra] of tsconfigs)
  writeFileSync(
    join(outDir, name),
    JSON.stringify(
      {
        extends: join(root, "tsconfig.base.json"),
        compilerOptions: { jsx: "react-jsx", allowImportingTsExtensions: true, ...extra },
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

const postgres =
  sqlRuns.length || [...runs, ...vitestRuns].some((run) => needsPostgres(run.block))
    ? await startPostgres()
    : undefined;
try {
  // The SQLite guide's files and backups go to ./data and ./backups, folders the page says must exist.
  for (const folder of ["data", "backups"]) mkdirSync(join(outDir, folder), { recursive: true });
  const outcomes = await pool(runs, async (run, k) =>
    execute(run, needsPostgres(run.block) ? await postgres.database(`snippet_${k}`) : {})
  );
  for (const problems of outcomes) claims.push(...problems);
  if (vitestRuns.length) claims.push(...(await runVitest(vitestRuns, postgres)));
  for (const [k, run] of sqlRuns.entries()) claims.push(...(await runSql(run, k, postgres)));
} finally {
  await postgres?.stop();
}

if (!keep) rmSync(outDir, { recursive: true, force: true });

const shown = runs.filter((run) => run.block.output || run.block.results.size).length;
const ran = `${runs.length} ran (${shown} of them compared with the output the page shows), ${vitestRuns.length} ran as vitest tests, ${skipped.length} allow-listed; ${sqlRuns.length} SQL blocks ran on PostgreSQL; ${otherCount} blocks of other libraries not checked; the packages a reader installs took ${installSeconds} s to pack and install`;
if (result.status === 0 && !claims.length && !uninstallable.length) {
  console.log(`check-snippets: ${count} TypeScript blocks in docs/ type-check; ${ran}`);
  for (const line of skipped) console.log(`  not run: ${line}`);
  process.exit(0);
}
if (uninstallable.length) {
  console.error("check-snippets: blocks in docs/ import packages a reader cannot install\n");
  for (const problem of uninstallable) console.error(`  ${problem}\n`);
}
if (result.status !== 0) {
  console.error(`check-snippets: TypeScript blocks in docs/ do not type-check (${count} checked)\n`);
  for (const failure of failures) console.error(`  ${failure}`);
  if (other.length) console.error(`\n${other.map((l) => `  ${posix.normalize(l)}`).join("\n")}`);
}
if (claims.length) {
  console.error(`\ncheck-snippets: output shown in docs/ is not what the snippet prints (${ran})\n`);
  for (const claim of claims) console.error(`  ${claim.replaceAll("\n", "\n  ")}\n`);
}
if (keep) console.error(`\nextracted files kept in ${outDir}`);
process.exit(1);
