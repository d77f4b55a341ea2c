import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, test } from "vitest";
import {
  type Connection,
  type Environment,
  PREFETCH_BUDGET,
  ROUTE_RESERVE,
  idlePrefetching,
  prefetchOff,
} from "./idle-prefetch";

/**
 * A page in a test: idle periods run when `idle()` is called, each route
 * costs the bytes `sizes` gives it, and `connection` is what the browser
 * says of the network.
 */
function fakePage(sizes: Record<string, number> = {}, connection: Connection = { effectiveType: "4g" }) {
  const periods: (() => void)[] = [];
  const calls: string[] = [];
  let spent = 0;
  const fetched = new Set<string>();
  const docusaurus = {
    prefetch(path: string) {
      calls.push(`prefetch ${path}`);
      if (fetched.has(path)) return false;
      fetched.add(path);
      spent += sizes[path] ?? 1000;
      return Promise.resolve();
    },
    preload(path: string) {
      calls.push(`preload ${path}`);
      return true;
    },
  };
  const env: Environment = {
    idle: (run) => periods.push(() => run({ timeRemaining: () => 10 })),
    connection: () => connection,
    spent: () => spent,
  };
  /** Runs idle periods (and the promises they start) until none is left. */
  const idle = async () => {
    while (periods.length) {
      periods.shift()!();
      await new Promise((done) => setTimeout(done, 0));
    }
  };
  return { docusaurus, env, calls, periods, idle, spent: () => spent };
}

describe("idle-prefetch: route prefetches wait for idle periods", () => {
  test("nothing is prefetched before the page is idle; then one at a time, in order; preload stays immediate", async () => {
    const page = fakePage();
    const wrapped = idlePrefetching(page.docusaurus, page.env);
    for (const path of ["/a", "/b", "/c"]) wrapped.prefetch(path);
    wrapped.preload("/d");
    assert.deepEqual(page.calls, ["preload /d"], "nothing prefetched before the page is idle");
    assert.equal(page.periods.length, 1, "one idle period is asked for, not one per link");
    await page.idle();
    assert.deepEqual(page.calls, ["preload /d", "prefetch /a", "prefetch /b", "prefetch /c"]);
  });

  test("a reader who saves data, or a 3g or slower connection, gets no prefetch at all", async () => {
    for (const connection of [
      { saveData: true, effectiveType: "4g" },
      { effectiveType: "3g" },
      { effectiveType: "2g" },
      { effectiveType: "slow-2g" },
    ]) {
      const page = fakePage({}, connection);
      const wrapped = idlePrefetching(page.docusaurus, page.env);
      assert.equal(wrapped.prefetch("/a"), false, JSON.stringify(connection));
      await page.idle();
      assert.deepEqual(page.calls, [], JSON.stringify(connection));
      wrapped.preload("/a");
      assert.deepEqual(page.calls, ["preload /a"], "a reader's hover still preloads");
    }
    assert.equal(prefetchOff(undefined), false, "a browser without the API prefetches");
    assert.equal(prefetchOff({ effectiveType: "4g" }), false);
  });

  test("prefetching stops before the budget would be passed, and the queue is dropped", async () => {
    const page = fakePage({ "/a": 120_000, "/b": 120_000, "/c": 120_000, "/d": 10 });
    const wrapped = idlePrefetching(page.docusaurus, page.env, 300_000, 75_000);
    for (const path of ["/a", "/b", "/c", "/d"]) wrapped.prefetch(path);
    await page.idle();
    assert.deepEqual(page.calls, ["prefetch /a", "prefetch /b"], "a third 120 kB route would pass 300 kB");
    assert.equal(wrapped.prefetch("/e"), false, "later links are not queued");
  });

  test("a large route coming after small ones does not take the page past the budget", async () => {
    const small = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`/s${i}`, 25_000]));
    const page = fakePage({ ...small, "/large": 70_000 });
    const wrapped = idlePrefetching(page.docusaurus, page.env, 300_000, 75_000);
    for (const path of [...Object.keys(small), "/large"]) wrapped.prefetch(path);
    await page.idle();
    assert.equal(page.spent(), 250_000, "the tenth small route leaves too little room for the reserve");
    assert.ok(!page.calls.includes("prefetch /large"));
  });

  test("property: whatever the links, their order and their sizes, at most the budget is prefetched when no route is larger than the reserve", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: ROUTE_RESERVE }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat({ max: 39 }), { maxLength: 80 }),
        async (sizes, links) => {
          const bySize = Object.fromEntries(sizes.map((size, i) => [`/${i}`, size]));
          const page = fakePage(bySize);
          const wrapped = idlePrefetching(page.docusaurus, page.env, PREFETCH_BUDGET);
          for (const i of links) wrapped.prefetch(`/${i % sizes.length}`);
          await page.idle();
          assert.ok(page.spent() <= PREFETCH_BUDGET, `${page.spent()} bytes prefetched`);
          // Nothing is refused while there was room for one more route of the size it reserves.
          const prefetched = new Set(page.calls.map((call) => call.slice("prefetch ".length)));
          const asked = new Set(links.map((i) => `/${i % sizes.length}`));
          const largest = Math.max(0, ...[...prefetched].map((path) => bySize[path]));
          if (prefetched.size < asked.size)
            assert.ok(page.spent() + Math.max(largest, ROUTE_RESERVE) > PREFETCH_BUDGET);
        }
      ),
      { seed: 27, numRuns: 200 }
    );
  });
});
