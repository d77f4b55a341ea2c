import { ValidationError } from "../core/errors.js";
import type { Store } from "../types/ports.js";
import type { TestApi } from "./test-api.js";

/**
 * The part of the store conformance suite about the positions of discovery
 * (`discovered`, `discover`): how far correlation has registered reaction
 * streams, per reaction name, shared by every process on the store.
 * Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function discoveryConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  describe("discovery positions", () => {
    const positions = async (names: string[]) => [...(await store().discovered(names)).entries()].sort();

    it("knows no position for a reaction never discovered", async () => {
      expect(await positions(["A/r#1", "B/projection:Totals"])).toEqual([]);
      expect(await positions([])).toEqual([]);
    });

    it("records positions per reaction, moves them only forward, and leaves the others alone", async () => {
      await store().discover(["A/r#1", "B/s#1"], 5);
      await store().discover(["A/r#1"], 3); // behind: stays at 5
      await store().discover(["A/r#1"], 9);
      await store().discover(["C/t#1"], -1); // nothing correlated yet, but known
      await store().discover([], 7);
      expect(await positions(["A/r#1", "B/s#1", "C/t#1", "D/u#1"])).toEqual([
        ["A/r#1", 9],
        ["B/s#1", 5],
        ["C/t#1", -1],
      ]);
    });

    it("keeps names of every shape apart: repeats, Object's property names, slashes, long names", async () => {
      const long = `E/${"x".repeat(600)}#1`;
      await store().discover(["constructor", "__proto__", "A/r#1", "A/r#1", long, "A/r#10"], 4);
      await store().discover(["A/r#10"], 6);
      expect(await positions(["A/r#1", "A/r#10", "__proto__", "constructor", long, "toString"])).toEqual(
        [
          ["A/r#1", 4],
          ["A/r#10", 6],
          ["__proto__", 4],
          ["constructor", 4],
          [long, 4],
        ].sort()
      );
    });

    it("ends at the highest position whatever order racing processes record in", async () => {
      const names = ["A/r#1", "B/s#1", "C/t#1"];
      await Promise.all([7, 3, 11, 5, 9, 1].map((at, i) => store().discover(i % 2 ? names : [...names].reverse(), at)));
      expect(await positions(names)).toEqual(names.map((n) => [n, 11]));
    });

    it("keeps positions through seed and forgets them on drop", async () => {
      await store().discover(["A/r#1"], 2);
      await store().seed();
      expect(await positions(["A/r#1"])).toEqual([["A/r#1", 2]]);
      await store().drop();
      await store().seed();
      expect(await positions(["A/r#1"])).toEqual([]);
    });

    it("refuses bad names and positions, and records nothing", async () => {
      for (const names of [[""], ["a\u0000b"], [1], "A/r#1", undefined])
        await expect(store().discover(names as never, 1)).rejects.toThrow(ValidationError);
      for (const at of [-2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3", undefined])
        await expect(store().discover(["A/r#1"], at as never)).rejects.toThrow(ValidationError);
      await expect(store().discovered([""] as never)).rejects.toThrow(ValidationError);
      expect(await positions(["A/r#1"])).toEqual([]);
    });
  });
}
