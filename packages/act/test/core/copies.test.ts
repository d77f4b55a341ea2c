/**
 * Two copies of the library in one process — here the built package and the
 * sources, two module instances with a store port each — are found out when
 * the second one's port is first used while the first one's holds a store,
 * instead of each copy's apps silently writing to a store of their own.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, disposeAndExit, InMemoryStore, store } from "../../src/index.js";
import { actor, Counter } from "../fixtures.js";

const dist = new URL("../../dist/index.js", import.meta.url);
type Copy = typeof import("../../src/index.js");

afterEach(async () => {
  await disposeAndExit();
});

// The built package is the second copy: `npm run build:packages` makes it (`npm test` does, so under
// CI this always runs and fails without the build; a quick local run of the sources alone leaves it out).
describe.skipIf(!existsSync(fileURLToPath(dist)) && !process.env.CI)("a second copy of @act-root/act", () => {
  it("throws when its store port is first used while the other copy's port holds a store, naming both and how to dedupe", async () => {
    const built: Copy = await import(/* @vite-ignore */ dist.href);
    await disposeAndExit();
    store(); // this copy's port holds a store now
    let message = "";
    try {
      built.store();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/Two copies of @act-root\/act are loaded/);
    expect(message).toContain("packages/act/src/"); // the first copy
    expect(message).toContain("packages/act/dist/"); // this one
    expect(message).toMatch(/version \d+\.\d+\.\d+/); // the build records its version
    expect(message).toContain("npm ls @act-root/act");
    expect(message).toContain("npm dedupe");
    // Nothing was created: the refusal leaves the copy's port without a store, so an app fails too.
    const app = built.act().with(Counter).build();
    await expect(app.query({})).rejects.toThrow(/Two copies/);

    // Once the first copy's store is disposed, the other may take the port — and the first is refused.
    await disposeAndExit();
    expect(built.store()).toBeInstanceOf(built.InMemoryStore);
    expect(() => store()).toThrow(/Two copies/);
    await built.disposeAndExit();
    expect(store()).toBeInstanceOf(InMemoryStore);
  });

  it("lets each copy's apps run on stores they were built with: no port, no split", async () => {
    const built: Copy = await import(/* @vite-ignore */ dist.href);
    await disposeAndExit();
    store();
    const own = new built.InMemoryStore();
    const app = built.act().with(Counter).build({ store: own });
    await app.do("increment", { stream: "c", actor }, { by: 1 });
    expect(await own.query(() => {}, { stream: "c" })).toBe(1);
    expect(await store().query(() => {}, { stream: "c" })).toBe(0);
  });
});

describe("the same copy loaded again", () => {
  it("is not a second copy: a test runner resetting its modules may use the port of the new instance", async () => {
    await disposeAndExit();
    const first = store();
    await act().with(Counter).build().do("increment", { stream: "c", actor }, { by: 1 });
    vi.resetModules();
    const again: Copy = await import("../../src/index.js");
    expect(again.store()).not.toBe(first);
    await again.disposeAndExit();
  });
});
