#!/usr/bin/env node
// `npm test`: every suite of the repository, the independent ones side by side.
//
// Run one after the other, the suites take about 22 minutes on a two-core
// machine, and much of that is waiting rather than computing: the PostgreSQL
// tests wait on the server and on lease timers, the browser tests on page
// loads, the reader's test on `npm install`. So the suites run as a graph —
// each starts once the steps it needs have passed (everything needs the
// packages built; the browser tests need the built site) and while the
// machine has a core to spare for it, in the order of the longest path first.
// Every suite still runs whole, with the same command as before (the table
// below names its npm script), so `npm run test:unit` alone still works.
//
// Each suite's output goes to its own log file and is printed in one piece
// when the suite ends, so the output of two suites never interleaves. The
// first failure stops the others and the command fails with its output.
//
// `node scripts/run-tests.mjs unit postgres` runs only the named steps (their
// prerequisites are assumed done). ACT_TEST_JOBS sets how many cores' worth
// of suites may run at once (default: the machine's cores and a half; 1 = one
// at a time).
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The suites, in the order they are preferred when several could start: the
 * ones on the longest path to the end first. `cpu` is how many cores a suite
 * may keep busy — the summary at the end of a run prints each suite's CPU
 * time beside its duration, which is what these are checked against. The
 * site build and the browser tests are the longest path, so they are given
 * more room than they use on average: the build one and a half (0.7 cores
 * on average in a clean-clone run, its bundler's threads at times more),
 * the browser tests one (0.5 on average: they wait on page loads and idle
 * periods). A vitest run or a compiler takes one core (1); the suites that
 * mostly wait — the PostgreSQL tests (one file at a time, waiting on the
 * server and on lease timers; 0.25), `npm install`, `npm pack` — half of
 * one (0.5). `after` names the steps a suite needs.
 *
 * @type {{ name: string, script: string, after: string[], cpu: number }[]}
 */
export const STEPS = [
  { name: "lint", script: "lint", after: [], cpu: 1 },
  { name: "workflows", script: "test:workflows", after: [], cpu: 0.5 },
  { name: "build", script: "build:packages", after: [], cpu: 1 },
  { name: "site", script: "test:site", after: ["build"], cpu: 1.5 },
  { name: "e2e", script: "test:e2e", after: ["site"], cpu: 1 },
  { name: "postgres", script: "test:postgres", after: ["build"], cpu: 0.5 },
  // A second build of the site, from a copy with a cut release: nothing of
  // this site's build is needed, so it runs beside that build and the
  // browser tests instead of before the browser tests.
  { name: "versions", script: "test:site-versions", after: ["build"], cpu: 1 },
  { name: "reader", script: "test:reader", after: ["build"], cpu: 0.5 },
  { name: "unit", script: "test:unit", after: ["build"], cpu: 1 },
  { name: "inspector", script: "test:inspector", after: ["build"], cpu: 1 },
  { name: "typecheck", script: "typecheck", after: ["build"], cpu: 1 },
  { name: "examples", script: "test:examples", after: ["build"], cpu: 1 },
  { name: "pack", script: "test:pack", after: ["build"], cpu: 0.5 },
  { name: "snippets", script: "test:snippets", after: ["build"], cpu: 1 },
  // The starter's end to end: packs, then two `npm install`s and the generated
  // projects' tsc and vitest — about two minutes, a third of a core on average.
  { name: "starter", script: "test:starter", after: ["build"], cpu: 0.5 },
  // The HTTP package's smoke test on Node, Bun and Deno (each from npm when not
  // installed: the registry is all CI reaches) — seconds, mostly downloads.
  { name: "runtimes", script: "test:runtimes", after: ["build"], cpu: 0.5 },
];

/**
 * The steps to start now: those whose prerequisites have passed, in the
 * table's order, while the cores they keep busy fit in `capacity` — and
 * always one when nothing runs, so a step heavier than the machine still runs
 * (alone). The default capacity is the machine's cores plus half of one, so
 * a suite that mostly waits runs beside one that takes every core.
 *
 * @param {typeof STEPS} steps
 * @param {{ passed: Set<string>, running: Set<string>, capacity: number }} state
 * @returns {string[]}
 */
export function startable(steps, { passed, running, capacity }) {
  let busy = steps.filter((s) => running.has(s.name)).reduce((sum, s) => sum + s.cpu, 0);
  const start = [];
  for (const step of steps) {
    if (passed.has(step.name) || running.has(step.name)) continue;
    if (!step.after.every((name) => passed.has(name))) continue;
    if (busy > 0 && busy + step.cpu > capacity) continue;
    start.push(step.name);
    busy += step.cpu;
  }
  return start;
}

/**
 * The CPU seconds (user and system) of a shell's children, from what bash's
 * `times` prints: its own line, then its children's (`0m1.250s 0m0.310s`).
 * `undefined` when the output is not that.
 *
 * @param {string} output
 * @returns {number | undefined}
 */
export function cpuSeconds(output) {
  const lines = output.trim().split("\n");
  const match = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.at(-1)?.trim() ?? "");
  if (lines.length !== 2 || !match) return undefined;
  const [, um, us, sm, ss] = match.map(Number);
  return um * 60 + us + sm * 60 + ss;
}

/** Seconds with one decimal. */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const only = process.argv.slice(2);
  for (const name of only) {
    if (!STEPS.some((s) => s.name === name)) {
      console.error(`run-tests: no step "${name}"; the steps are ${STEPS.map((s) => s.name).join(", ")}`);
      process.exit(2);
    }
  }
  // With names given, run those; their prerequisites count as done.
  const steps = only.length
    ? STEPS.filter((s) => only.includes(s.name)).map((s) => ({ ...s, after: s.after.filter((a) => only.includes(a)) }))
    : STEPS;
  const capacity = Number(process.env.ACT_TEST_JOBS) || availableParallelism() + 0.5;
  const logs = join(root, ".cache", "test-logs");
  mkdirSync(logs, { recursive: true });

  const began = Date.now();
  const passed = new Set();
  const running = new Map(); // name → child process
  const times = [];
  let failed = false;

  /**
   * Stops every running suite's process group — its servers and browsers
   * too — with SIGTERM, and SIGKILLs what is left of a group after ten
   * seconds: a suite still running would hold its ports into the next run.
   * Resolves once every group is gone.
   */
  const stopAll = async () => {
    const groups = [...running.values()].map((child) => -child.pid);
    const signal = (name) =>
      groups.filter((group) => {
        try {
          process.kill(group, name);
          return true;
        } catch {
          return false; // no process left in it
        }
      });
    signal("SIGTERM");
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && signal(0).length; )
      await new Promise((r) => setTimeout(r, 200));
    signal("SIGKILL");
  };
  for (const name of ["SIGINT", "SIGTERM"]) {
    process.on(name, async () => {
      await stopAll();
      process.exit(1);
    });
  }

  console.log(`run-tests: ${steps.length} steps, up to ${capacity} cores' worth at once; logs in .cache/test-logs/`);
  await new Promise((resolve) => {
    const launch = () => {
      if (failed) return;
      if (passed.size === steps.length) return resolve();
      const names = startable(steps, { passed, running: new Set(running.keys()), capacity });
      for (const name of names) {
        const step = steps.find((s) => s.name === name);
        const file = join(logs, `${name}.log`);
        const out = createWriteStream(file);
        const started = Date.now();
        console.log(`▶ ${name} (npm run ${step.script}) at ${seconds(started - began)}`);
        // Through bash, whose `times` then reports the CPU the suite's
        // processes used (those it waited for: not a server it left running
        // in the background), on a pipe of its own so the log stays the suite's.
        const child = spawn("bash", ["-c", 'npm run "$0"; code=$?; times >&3; exit $code', step.script], {
          cwd: root,
          detached: true,
          stdio: ["ignore", "pipe", "pipe", "pipe"],
          env: process.env,
        });
        child.stdout.pipe(out, { end: false });
        child.stderr.pipe(out, { end: false });
        let timesOutput = "";
        child.stdio[3].on("data", (chunk) => (timesOutput += chunk));
        running.set(name, child);
        child.on("close", (code, signal) => {
          out.end(() => {
            running.delete(name);
            if (failed) return;
            const took = Date.now() - started;
            times.push({ name, script: step.script, start: started - began, took, cpu: cpuSeconds(timesOutput) });
            const ok = code === 0;
            console.log(`\n━━ ${name} (npm run ${step.script}): ${ok ? "passed" : "FAILED"} in ${seconds(took)} ━━`);
            process.stdout.write(readFileSync(file, "utf8"));
            if (!ok) {
              failed = true;
              process.exitCode = 1;
              return stopAll().then(() => {
                console.error(`\nrun-tests: ${name} failed (exit ${code ?? signal}); the other steps were stopped.`);
                resolve();
              });
            }
            passed.add(name);
            launch();
          });
        });
      }
    };
    launch();
  });

  if (!failed) {
    console.log("\nrun-tests: every step passed");
    for (const t of times.sort((a, b) => a.start - b.start)) {
      const cpu =
        t.cpu === undefined
          ? ""
          : `  cpu ${`${t.cpu.toFixed(1)} s`.padStart(8)} (${(t.cpu / (t.took / 1000)).toFixed(2)} cores)`;
      console.log(
        `  ${t.name.padEnd(10)} from ${seconds(t.start).padStart(8)}  took ${seconds(t.took).padStart(8)}${cpu}`
      );
    }
    console.log(`  total ${seconds(Date.now() - began)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
