import { describe, expect, it } from "vitest";
import { STEPS, cpuSeconds, startable } from "./run-tests.mjs";

const state = (passed = [], running = [], capacity = 2) => ({
  passed: new Set(passed),
  running: new Set(running),
  capacity,
});

describe("npm test's schedule", () => {
  it("starts only the steps that need nothing first", () => {
    expect(startable(STEPS, state([], [], 2.5))).toEqual(["lint", "workflows", "build"]);
  });

  it("starts a step once every step it needs has passed, and never one already running or passed", () => {
    const next = startable(STEPS, state(["lint", "workflows", "build"], [], 2.5));
    // The site build takes most of the machine; suites that mostly wait run beside it.
    expect(next).toEqual(["site", "postgres", "reader"]);
    // The browser tests start with the build of the site with a cut release beside them.
    expect(startable(STEPS, state(["lint", "workflows", "build", "site"], ["postgres"], 2.5))).toEqual([
      "e2e",
      "versions",
    ]);
    // A step waits for the cores another still holds.
    expect(startable(STEPS, state(["lint", "workflows", "build", "site"], ["unit", "e2e"], 2.5))).toEqual(["postgres"]);
  });

  it("keeps the cores busy without going over, and runs one step alone on a one-core machine", () => {
    const cores = (names) => names.reduce((sum, n) => sum + STEPS.find((s) => s.name === n).cpu, 0);
    for (const capacity of [1, 2.5, 4.5]) {
      const done = ["lint", "workflows", "build"];
      const next = startable(STEPS, state(done, [], capacity));
      expect(next.length).toBeGreaterThan(0);
      if (next.length > 1) expect(cores(next)).toBeLessThanOrEqual(capacity);
    }
    expect(startable(STEPS, state(["lint", "workflows", "build"], [], 1))).toEqual(["site"]);
    expect(startable(STEPS, state(["lint", "workflows", "build"], ["site"], 1))).toEqual([]);
    expect(startable(STEPS, state(["lint", "workflows", "build"], ["postgres"], 1))).toEqual(["reader"]);
  });

  it("runs every step of the table exactly once, whatever the machine", () => {
    for (const capacity of [1, 2, 3, 8]) {
      const passed = new Set();
      const started = [];
      while (passed.size < STEPS.length) {
        // Everything started finishes before the next round.
        const next = startable(STEPS, { passed, running: new Set(), capacity });
        expect(next.length).toBeGreaterThan(0);
        for (const name of next) {
          expect(STEPS.find((s) => s.name === name).after.every((a) => passed.has(a))).toBe(true);
          started.push(name);
        }
        for (const name of next) passed.add(name);
      }
      expect([...started].sort()).toEqual(STEPS.map((s) => s.name).sort());
    }
  });

  it("runs the starter's end-to-end test once the packages are built, beside the suites that mostly wait", () => {
    const starter = STEPS.find((s) => s.name === "starter");
    expect(starter).toMatchObject({ script: "test:starter", after: ["build"] });
    // Half a core: on a one-core machine it runs beside the PostgreSQL tests.
    const rest = STEPS.map((s) => s.name).filter((name) => name !== "postgres" && name !== "starter");
    expect(startable(STEPS, state(rest, [], 1))).toEqual(["postgres", "starter"]);
  });

  it("reads a suite's CPU time from what bash's times prints: its children's user and system time", () => {
    expect(cpuSeconds("0m0.010s 0m0.004s\n1m2.500s 0m3.250s\n")).toBe(65.75);
    // Only the two lines of `times`; anything else is no figure rather than a wrong one.
    expect(cpuSeconds("0m2.000s 0m1.000s\n")).toBeUndefined();
    expect(cpuSeconds("")).toBeUndefined();
    expect(cpuSeconds("0m0.010s 0m0.004s\nsomething else\n")).toBeUndefined();
  });

  it("names an npm script that exists for every step, and no step it needs is missing", async () => {
    const { readFileSync } = await import("node:fs");
    const scripts = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).scripts;
    for (const step of STEPS) {
      expect(scripts[step.script], step.script).toBeTypeOf("string");
      for (const after of step.after) expect(STEPS.map((s) => s.name)).toContain(after);
    }
  });
});
