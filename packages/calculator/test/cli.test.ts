import { describe, expect, it } from "vitest";
import { parse, run } from "../src/cli.js";

describe("command line", () => {
  it("reads keys from separate or joined arguments", () => {
    expect(parse(["12", "+", "3", "="]).keys).toEqual(["1", "2", "+", "3", "="]);
    expect(parse(["12+3="]).keys).toEqual(["1", "2", "+", "3", "="]);
    expect(parse(["AC", "7", "x", "2"]).keys).toEqual(["C", "7", "×", "2"]);
    expect(parse(["1", "?"]).unknown).toEqual(["?"]);
  });

  it("prints the display after each key, then the events", async () => {
    const lines: string[] = [];
    const shown = await run(["1", "+", "2", "=", "?"], (line) => lines.push(line), "cli-1");
    expect(shown).toBe("3");
    expect(lines[0]).toBe("ignored: ?");
    expect(lines.filter((l) => l.includes("→")).map((l) => l.split("→")[1].trim().split(/\s+/)[0])).toEqual([
      "1",
      "1",
      "2",
      "3",
    ]);
    expect(lines.some((l) => l.includes("EqualsPressed") && l.includes('{"result":3}'))).toBe(true);
    expect(lines[lines.length - 1]).toMatch(/^display: 3/);
  });

  it("reports a broken invariant and goes on", async () => {
    const lines: string[] = [];
    const shown = await run(["c", "5"], (line) => lines.push(line), "cli-2");
    expect(lines[0]).toBe("C  ✗ Calculator must not be clean");
    expect(shown).toBe("5");
  });

  it("shows snapshot events in the log", async () => {
    const lines: string[] = [];
    await run(["1+2+3+4+5+6="], (line) => lines.push(line), "cli-3");
    expect(lines.some((l) => l.includes("__snapshot__"))).toBe(true);
    expect(lines[lines.length - 1]).toMatch(/^display: 21 \(loaded from 1 snapshot/);
  });
});
