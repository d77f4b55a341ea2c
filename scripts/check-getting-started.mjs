#!/usr/bin/env node
/**
 * The reader's path as a test: follows docs/guides/getting-started.mdx from an
 * empty temporary folder, block by block, the way a reader would, and fails
 * where the page and what happens disagree.
 *
 *     npm run test:reader          (node --import tsx scripts/check-getting-started.mjs)
 *     … --keep                     keep the temporary folder and print where it is
 *
 * Needs the built packages (`npm run build:packages`), the npm registry or a
 * warm npm cache (zod, tsx, TypeScript, @types/node and the stores'
 * dependencies are installed with `--prefer-offline`), and PostgreSQL: the
 * server `DATABASE_URL` names, or else a disposable one started with the
 * act-pg tests' helper (packages/act-pg/tools/pg-server.ts).
 *
 * What it does, in page order:
 *
 * - packs the workspace packages with `npm run pack:local` into the
 *   temporary folder — the install path the page gives before the first
 *   release;
 * - runs every `bash` block outside the pnpm/yarn tabs and outside
 *   admonitions, as one shell script in the folder the previous block ended
 *   in, with two substitutions a reader makes: an `npm install` of
 *   `@act-root/<name>` installs the packed tarball instead (as the page's
 *   "Before the first release" note says), and the PostgreSQL server is the
 *   test server — `docker run` is skipped and `export DATABASE_URL=…` points
 *   at a fresh database on it; `npm create act-app@latest <folder>` runs the
 *   packed starter on the packed packages (`--packs`), and the block after
 *   it starts again in the folder it started in;
 * - writes every block titled with a file name (`tsconfig.json`,
 *   `src/todo.ts`, …) to that path;
 * - runs a `ts` block followed by an Output block with `npx tsx <its file>`,
 *   and compares what it prints to the Output block, line by line; a `text`
 *   block right after a `bash` block is what that block prints, compared the
 *   same way;
 * - checks the versions the page says it was checked with against what the
 *   install put in `node_modules` (and the Node.js running it), and ends with
 *   `npx tsc` over the whole project.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pagePath = join(root, "docs", "guides", "getting-started.mdx");
const page = relative(root, pagePath);
const keep = process.argv.includes("--keep");

/** The page's fenced blocks in order, with the tab and admonition they sit in. */
function parse(text) {
  const lines = text.split("\n");
  const found = [];
  let tab;
  let admonition = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const opened = /<TabItem\s+value="([^"]+)"/.exec(line);
    if (opened) tab = opened[1];
    else if (/<\/TabItem>/.test(line)) tab = undefined;
    else if (/^:::\w/.test(line.trim())) admonition = true;
    else if (line.trim() === ":::") admonition = false;
    const fence = /^(\s*)(`{3,})(\w*)\s*(.*)$/.exec(line);
    if (!fence) continue;
    const [, indent, ticks, lang, meta] = fence;
    let end = i + 1;
    while (end < lines.length && lines[end].trim() !== ticks) end++;
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    const title = /title="([^"]+)"/.exec(meta)?.[1];
    found.push({ lang, title, line: i + 1, body, tab, admonition, end });
    i = end;
  }
  // A block directly followed (blank lines only) by a `text` block shows its output there.
  return found.map((block, k) => {
    const next = found[k + 1];
    const between = next ? lines.slice(block.end + 1, next.line - 1) : ["x"];
    const shown = next?.lang === "text" && between.every((l) => l.trim() === "") ? next : undefined;
    return { ...block, shown };
  });
}

const trimLines = (lines) => {
  const out = lines.map((l) => l.trimEnd());
  while (out.length && out.at(-1) === "") out.pop();
  return out;
};

/** Compares printed text with a `text` block; returns a problem or undefined. */
function compare(printed, shown, what) {
  const expected = trimLines(shown.body);
  const actual = trimLines(printed.split("\n"));
  const at = expected.findIndex((l, k) => l !== actual[k]);
  const differs = at >= 0 ? at : actual.length > expected.length ? expected.length : -1;
  if (differs < 0) return undefined;
  return (
    `${page}:${shown.line + 1 + differs} ${what} prints something else\n` +
    `  expected: ${JSON.stringify(expected[differs] ?? "(end of output)")}\n` +
    `  actual:   ${JSON.stringify(actual[differs] ?? "(end of output)")}\n` +
    `  printed:\n${actual.map((l) => `    | ${l}`).join("\n")}`
  );
}

const problems = [];
const work = mkdtempSync(join(tmpdir(), "act-reader-"));
const packs = join(work, "packs");
const env = {
  ...process.env,
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
for (const name of ["NODE_ENV", "LOG_LEVEL", "SLEEP_MS", "NODE_OPTIONS", "TSX_TSCONFIG_PATH", "DATABASE_URL"])
  delete env[name];

/** Runs a shell script in `cwd`; returns stdout and the folder it ended in. */
function shell(script, cwd, where) {
  const marker = join(work, ".cwd");
  const run = spawnSync("bash", ["-e", "-c", `${script}\npwd > ${JSON.stringify(marker)}`], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 180_000,
  });
  if (run.status !== 0)
    throw new Error(
      `${where} failed (exit ${run.status ?? run.signal})\n  stdout:\n${run.stdout}\n  stderr:\n${run.stderr}`
    );
  return { stdout: run.stdout, cwd: readFileSync(marker, "utf8").trim() };
}

let database;
try {
  const packed = spawnSync(process.execPath, [join(root, "scripts", "pack-local.mjs"), "--no-build", packs], {
    encoding: "utf8",
  });
  if (packed.status !== 0)
    throw new Error(`packing the workspace packages failed (run npm run build:packages first)\n${packed.stderr}`);

  // PostgreSQL for step 5: a fresh database, so both runs start from nothing.
  const { throwawayDatabase } = await import("../packages/act-pg/tools/throwaway-database.ts");
  database = await throwawayDatabase("reader");
  const readerUrl = new URL(database.url);

  const blocks = parse(readFileSync(pagePath, "utf8"));
  let cwd = work;
  for (const block of blocks) {
    if (block.admonition || (block.tab && block.tab !== "npm")) continue;
    const where = `${page}:${block.line}`;
    if (block.lang === "bash") {
      const starter = block.body.some((line) => /^npm create act-app\b/.test(line));
      const script = block.body
        .filter((line) => !/^docker run\b/.test(line))
        .map((line) =>
          line
            .replace(/^export DATABASE_URL=.*$/, `export DATABASE_URL=${readerUrl.href}`)
            // The starter as the page's note runs it before the first release: packed, on the packed packages.
            .replace(
              /^npm create act-app@latest (\S+)$/,
              (_, folder) =>
                `npm exec --yes --package ${join(packs, "create-act-app.tgz")} -- create-act-app ${folder} --packs ${packs}`
            )
            .replace(/^(npm install .*)$/, (install) =>
              install.replace(/@act-root\/([a-z-]+)/g, (_, name) => join(packs, `act-root-${name}.tgz`))
            )
        )
        .join("\n");
      const ran = shell(script, cwd, where);
      // The starter is a way round the steps, not one of them: the next block starts where this one did.
      if (!starter) cwd = ran.cwd;
      // A variable a block exports stays set for the blocks after it, as in the reader's terminal.
      for (const [, name, value] of script.matchAll(/^export (\w+)=(\S*)$/gm)) env[name] = value;
      if (block.shown) {
        const problem = compare(ran.stdout, block.shown, `the bash block at line ${block.line}`);
        if (problem) problems.push(problem);
      }
    } else if (block.title && /^[\w./-]+\.(json|ts)$/.test(block.title) && block.lang !== "text") {
      const file = join(cwd, block.title);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${block.body.join("\n")}\n`);
      if (block.shown) {
        const { stdout } = shell(`npx tsx ${block.title}`, cwd, where);
        const problem = compare(stdout, block.shown, `npx tsx ${block.title}`);
        if (problem) problems.push(problem);
      }
    }
  }

  // The versions the page was checked with are the ones the install chose.
  const text = readFileSync(pagePath, "utf8").replace(/\s+/g, " ");
  const claim = /checked, from an empty folder and command by command, with (.*?)\.(?:\s|$)/.exec(text);
  if (!claim) problems.push(`${page}: the sentence naming the versions the guide was checked with is missing`);
  else {
    const installed = (name) =>
      name === "Node.js"
        ? process.versions.node
        : JSON.parse(readFileSync(join(cwd, "node_modules", name, "package.json"), "utf8")).version;
    const names = {
      "Node.js": "Node.js",
      TypeScript: "typescript",
      "`@types/node`": "@types/node",
      tsx: "tsx",
      zod: "zod",
    };
    const stated = [...claim[1].matchAll(/(Node\.js|TypeScript|`@types\/node`|tsx|zod) (\d+(?:\.\d+)*)/g)];
    if (stated.length !== Object.keys(names).length)
      problems.push(`${page}: the versions sentence should name ${Object.keys(names).join(", ")}: "${claim[1]}"`);
    for (const [, name, version] of stated) {
      const actual = installed(names[name]);
      if (actual !== version && !actual.startsWith(`${version}.`))
        problems.push(`${page}: the guide says it was checked with ${name} ${version}; the install gave ${actual}`);
    }
  }

  // The whole project type-checks, every step's files included.
  shell("npx tsc", cwd, `${page}: npx tsc over the finished project`);
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error));
} finally {
  await database?.drop();
  if (keep) console.error(`check-getting-started: the reader's folder is kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

if (problems.length) {
  console.error("check-getting-started: the getting-started guide does not do what it says\n");
  for (const problem of problems) console.error(`  ${problem.replaceAll("\n", "\n  ")}\n`);
  process.exit(1);
}
console.log(`check-getting-started: ${page} followed from an empty folder; every shown output matches`);
