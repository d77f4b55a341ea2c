import { describe, expect, it } from "vitest";
import { BatchSizes } from "../../src/projections/batch-size.js";

describe("a projection's batch size", () => {
  it("starts at eventLimit, doubles after each full and fast batch, and stops at the most a drain reads", () => {
    const sizes = new BatchSizes(100);
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      const size = sizes.next("p", 10, 100);
      seen.push(size);
      sizes.learn("p", { size, full: true, millis: 10 }, 10, 100);
    }
    expect(seen).toEqual([10, 20, 40, 80, 100, 100]);
  });

  it("does not grow after a batch that emptied the backlog, nor after one that took half the allowance or more", () => {
    const sizes = new BatchSizes(1_000);
    sizes.learn("p", { size: 10, full: false, millis: 1 }, 10, 100);
    expect(sizes.next("p", 10, 100)).toBe(10);
    sizes.learn("p", { size: 10, full: true, millis: 50 }, 10, 100);
    expect(sizes.next("p", 10, 100)).toBe(10);
    sizes.learn("p", { size: 10, full: true, millis: 49 }, 10, 100);
    expect(sizes.next("p", 10, 100)).toBe(20);
  });

  it("halves after a batch slower than the allowance, never below eventLimit", () => {
    const sizes = new BatchSizes(1_000);
    sizes.learn("p", { size: 400, full: true, millis: 101 }, 10, 100);
    expect(sizes.next("p", 10, 100)).toBe(200);
    sizes.learn("p", { size: 15, full: true, millis: 500 }, 10, 100);
    expect(sizes.next("p", 10, 100)).toBe(10);
  });

  it("learns per stream, follows a larger eventLimit, and is always eventLimit without an allowance", () => {
    const sizes = new BatchSizes(1_000);
    sizes.learn("a", { size: 10, full: true, millis: 1 }, 10, 100);
    expect(sizes.next("a", 10, 100)).toBe(20);
    expect(sizes.next("b", 10, 100)).toBe(10);
    expect(sizes.next("a", 50, 100)).toBe(50);
    expect(sizes.next("a", 10, 0)).toBe(10);
    sizes.learn("b", { size: 10, full: true, millis: 1 }, 10, 0);
    expect(sizes.next("b", 10, 100)).toBe(10);
  });
});
