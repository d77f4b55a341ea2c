/**
 * Idle SQLite tenants give back their files: the tenants' consumer closes
 * the file of a tenant unused for `idleMillis`, and the tenant's next call
 * opens it again with nothing lost. A tenant with a timer pending or a
 * drain running is not idle. The test counts the process's open file
 * descriptors on each tenant's file.
 */
import { act, disposeAndExit, state } from "@act-root/act";
import { readdirSync, readlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { SqliteStore, sqliteTenants } from "../src/index.js";
import { sleep, tempFile } from "./support.js";

process.env.LOG_LEVEL ??= "fatal";

const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: ({ data }, s) => ({ count: s.count + data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit((data) => ["Incremented", data])
  .build();
const actor = { id: "u", name: "U" };

// The driver gives a closed connection's descriptors back when the statements
// prepared on it are collected (their finalizers run on the next turn of the
// event loop): the count collects garbage and lets them run first.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The descriptors this process holds open on `file` and its `-wal` and `-shm` companions. */
async function openOn(file: string): Promise<number> {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  const path = resolve(file);
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(path)) n++;
    } catch {
      // closed while listed
    }
  }
  return n;
}

describe.runIf(process.platform === "linux")("idle SQLite tenants", () => {
  afterEach(async () => {
    await disposeAndExit();
  });

  it("closes an idle tenant's file and opens it again at its next use, losing nothing; not one with a timer or a drain running", async () => {
    const folder = dirname(tempFile());
    const file = (tenant: string) => join(folder, `${tenant}.db`);
    const handled: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const tenants = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => {
        // Tenant "busy"'s reaction runs until the test lets it finish.
        if (event.stream === "busy-1") await gate;
        handled.push(event.stream);
      })
      .buildTenants({ store: sqliteTenants({ folder, idleMillis: 200 }) });
    const idle = await tenants.add("idle");
    const timed = await tenants.add("timed");
    const busy = await tenants.add("busy");
    await timed.schedule({
      id: "later",
      action: "increment",
      target: { stream: "timed-1", actor },
      payload: { by: 1 },
      afterMillis: 3_600_000,
    });
    await busy.do("increment", { stream: "busy-1", actor }, { by: 1 });
    await idle.do("increment", { stream: "idle-1", actor }, { by: 1 });
    for (const tenant of ["idle", "timed", "busy"]) expect(await openOn(file(tenant))).toBeGreaterThan(0);

    tenants.start({ pollMillis: 20 });
    await vi.waitFor(async () => expect(await openOn(file("idle"))).toBe(0), { timeout: 10_000, interval: 20 });
    expect(handled).toEqual(["idle-1"]);
    // Several more polls of the others, each past the idle time: they stay open.
    await sleep(300);
    expect(await openOn(file("timed"))).toBeGreaterThan(0);
    expect(await openOn(file("busy"))).toBeGreaterThan(0);

    // The app kept from before the close works on: its commit opens the file and wakes its reaction.
    const [snap] = await idle.do("increment", { stream: "idle-1", actor }, { by: 2 });
    expect(await openOn(file("idle"))).toBeGreaterThan(0);
    await idle.settled([snap], { timeoutMillis: 5_000 });
    expect(handled).toEqual(["idle-1", "idle-1"]);
    expect((await idle.load(Counter, "idle-1")).state.count).toBe(3);

    // The busy tenant's drain finishes; then it is idle too and closes.
    open();
    await vi.waitFor(async () => expect(await openOn(file("busy"))).toBe(0), { timeout: 10_000, interval: 20 });
    expect(handled).toContain("busy-1");
    // Asking for a tenant's app counts as use: it is polled again, and closed again once idle.
    expect((await tenants.app("busy").load(Counter, "busy-1")).state.count).toBe(1);
    expect(await openOn(file("busy"))).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await openOn(file("busy"))).toBe(0), { timeout: 10_000, interval: 20 });
    expect(await openOn(file("timed"))).toBeGreaterThan(0);
    await tenants.dispose();
    for (const tenant of ["idle", "timed", "busy"]) expect(await openOn(file(tenant))).toBe(0);
  });

  it("keeps every file open with idleMillis 0, and refuses a negative one, naming it", async () => {
    expect(() => sqliteTenants({ folder: dirname(tempFile()), idleMillis: -1 })).toThrow(/idleMillis/);
    const strategy = sqliteTenants({ folder: dirname(tempFile()), idleMillis: 0 });
    expect(strategy.rest).toBeUndefined();
  });

  it("rests a store's file until its next call; an in-memory store is left open", async () => {
    const filename = tempFile();
    const store = new SqliteStore({ filename });
    await store.seed();
    await store.commit({ stream: "s", messages: [{ name: "E", data: {} }], meta: { correlation: "c", causation: {} } });
    expect(await openOn(filename)).toBeGreaterThan(0);
    store.rest();
    expect(await openOn(filename)).toBe(0);
    expect(await store.query(() => {}, { stream: "s" })).toBe(1);
    expect(await openOn(filename)).toBeGreaterThan(0);
    await store.dispose();

    const memory = new SqliteStore({ filename: ":memory:" });
    await memory.seed();
    await memory.commit({
      stream: "s",
      messages: [{ name: "E", data: {} }],
      meta: { correlation: "c", causation: {} },
    });
    memory.rest();
    expect(await memory.query(() => {}, { stream: "s" })).toBe(1);
    await memory.dispose();
  });
});
