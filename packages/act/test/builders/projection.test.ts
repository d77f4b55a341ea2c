import { beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import {
  act,
  ConcurrencyError,
  disposeAndExit,
  InMemoryStore,
  projection,
  state,
  store,
  ValidationError,
} from "../../src/index.js";
import { settle } from "../../src/testing/index.js";
import { actor, Counter, freshStore } from "../fixtures.js";
import { announce, replayPath, seedLabel, seedRuns } from "../seeds.js";

beforeEach(async () => {
  await freshStore();
});

const Ticket = state("Ticket", z.object({ title: z.string(), open: z.boolean() }))
  .init(() => ({ title: "", open: false }))
  .emits({ TicketOpened: z.object({ title: z.string() }), TicketClosed: z.object({}) })
  .patch({ TicketOpened: (e) => ({ title: e.data.title, open: true }), TicketClosed: () => ({ open: false }) })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["TicketOpened", { title }])
  .on("close", z.object({}))
  .emit(() => ["TicketClosed", {}])
  .build();

/** The open tickets as a projection keeps them, by stream. */
function openTickets(rows: Map<string, string>, name = "OpenTickets") {
  return projection(name)
    .with(Ticket)
    .on("TicketOpened", (event) => void rows.set(event.stream, event.data.title))
    .on("TicketClosed", (event) => void rows.delete(event.stream))
    .build();
}

describe("projection builder", () => {
  it("builds a projection with its stream, events and options", () => {
    const p = projection("OpenTickets", { version: 2, maxRetries: 1 })
      .with(Ticket)
      .on("TicketOpened", () => {})
      .build();
    expect(p.name).toBe("OpenTickets");
    expect(p.stream).toBe("projection:OpenTickets:v2");
    expect(p.events).toEqual(["TicketOpened"]);
    expect(p.options).toMatchObject({ version: 2, maxRetries: 1 });
    expect(
      projection("A")
        .with(Ticket)
        .on("TicketOpened", () => {})
        .build().stream
    ).toBe("projection:A");
  });

  it("refuses a projection without handlers, a handler twice, mixed kinds and bad names or options", () => {
    expect(() => projection("A").build()).toThrow(/handles no event/);
    const one = projection("A")
      .with(Ticket)
      .on("TicketOpened", () => {});
    expect(() => one.on("TicketOpened", () => {})).toThrow(/already handles "TicketOpened"/);
    expect(() => one.batch(["TicketClosed"], () => {})).toThrow(/mixes .on and .batch/);
    expect(() =>
      projection("A")
        .with(Ticket)
        .batch(["TicketOpened", "TicketOpened"], () => {})
    ).toThrow(/twice/);
    expect(() => projection("")).toThrow(/non-empty name/);
    expect(() => projection("a:b")).toThrow(/without ":"/);
    expect(() => projection("A", { version: 0 })).toThrow(ValidationError);
    expect(() => projection("A", { maxRetries: -1 })).toThrow(/maxRetries/);
  });

  it("refuses an event no registered state emits, and the same projection twice", () => {
    const p = openTickets(new Map());
    expect(() => act().with(Counter).with(p)).toThrow(/"TicketOpened", which no state registered so far emits/);
    expect(() => act().with(Ticket).with(p).with(openTickets(new Map()))).toThrow(/already registered/);
    // Another version of the same projection is another read model: both may run side by side.
    const v2 = projection("OpenTickets", { version: 2 })
      .with(Ticket)
      .on("TicketOpened", () => {})
      .build();
    expect(() => act().with(Ticket).with(p).with(v2).build()).not.toThrow();
  });
});

describe("asynchronous projections (in memory)", () => {
  it("applies every event it handles, in log order, with the app's drains", async () => {
    const rows = new Map<string, string>();
    const app = act().with(Ticket).with(openTickets(rows)).build();
    await app.do("open", { stream: "t-1", actor }, { title: "Printer" });
    await app.do("open", { stream: "t-2", actor }, { title: "Mail" });
    await app.do("close", { stream: "t-1", actor }, {});
    expect(rows.size).toBe(0); // asynchronous: nothing before a drain
    await settle(app);
    expect([...rows]).toEqual([["t-2", "Mail"]]);
    const [position] = (await app.stats()).streams;
    expect(position).toMatchObject({ stream: "projection:OpenTickets", lag: 0, blocked: false });
  });

  it("hands a batched handler each drain's events at once, in order", async () => {
    const batches: number[][] = [];
    const ids = projection("Ids")
      .with(Ticket)
      .batch(["TicketOpened", "TicketClosed"], (events) => {
        batches.push(events.map((e) => e.id));
      })
      .build();
    const app = act().with(Ticket).with(ids).build();
    const committed: number[] = [];
    for (let i = 0; i < 25; i++) {
      const [snap] = await app.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
      committed.push(snap.event!.id);
    }
    // Without a backlog allowance, each batch is exactly eventLimit.
    await settle(app, { eventLimit: 10, backlogMillis: 0 });
    expect(batches.flat()).toEqual(committed);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
  });

  it("takes a backlog in batches that double while they stay fast, each in order and whole", async () => {
    const batches: number[][] = [];
    const ids = projection("Ids")
      .with(Ticket)
      .batch(["TicketOpened"], (events) => {
        batches.push(events.map((e) => e.id));
      })
      .build();
    const app = act().with(Ticket).with(ids).build();
    const committed: number[] = [];
    for (let i = 0; i < 200; i++) {
      const [snap] = await app.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
      committed.push(snap.event!.id);
    }
    // A generous allowance, so a slow test machine still counts these batches as fast.
    await settle(app, { eventLimit: 10, backlogMillis: 60_000 });
    expect(batches.flat()).toEqual(committed);
    expect(batches.map((b) => b.length)).toEqual([10, 20, 40, 80, 50]);
  });

  it("keeps a slow projection's batches at eventLimit: a transaction cannot stop half-way", async () => {
    const sizes: number[] = [];
    const slow = projection("Slow")
      .with(Ticket)
      .batch(["TicketOpened"], async (events) => {
        sizes.push(events.length);
        await new Promise((resolve) => setTimeout(resolve, 30));
      })
      .build();
    const app = act().with(Ticket).with(slow).build();
    for (let i = 0; i < 40; i++) await app.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
    // Each batch takes longer than the allowance: the size never grows.
    await settle(app, { eventLimit: 10, backlogMillis: 5 });
    expect(sizes).toEqual([10, 10, 10, 10]);
  });

  it("a failing handler blocks only its projection; the others and the reactions go on", async () => {
    const rows = new Map<string, string>();
    const reacted: string[] = [];
    const broken = projection("Broken", { maxRetries: 0 })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        if (event.data.title === "bad") throw new Error("cannot store a bad title");
      })
      .build();
    const app = act()
      .with(Ticket)
      .with(openTickets(rows))
      .with(broken)
      .on("TicketOpened")
      .do(async (event) => void reacted.push(event.stream))
      .to("audit")
      .build();
    await app.do("open", { stream: "t-1", actor }, { title: "bad" });
    await app.do("open", { stream: "t-2", actor }, { title: "fine" });
    const { blocked } = await settle(app, { allowBlocked: true });
    expect(blocked.map((b) => b.stream)).toEqual(["projection:Broken"]);
    expect(blocked[0].error).toMatch(
      /Projection "Broken" failed on event "TicketOpened" #\d+: cannot store a bad title/
    );
    expect(blocked[0].at).toBe(-1); // nothing of the failed batch counts as projected
    expect([...rows.keys()]).toEqual(["t-1", "t-2"]);
    expect(reacted).toEqual(["t-1", "t-2"]);
  });

  it("retries a failing batch and then applies it once", async () => {
    let failures = 1;
    const seen: number[] = [];
    const flaky = projection("Flaky", { maxRetries: 2, retryBaseMillis: 0, retryMaxMillis: 0 })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        if (failures-- > 0) throw new Error("database hiccup");
        seen.push(event.id);
      })
      .build();
    const app = act().with(Ticket).with(flaky).build();
    const [snap] = await app.do("open", { stream: "t-1", actor }, { title: "x" });
    await settle(app);
    expect(seen).toEqual([snap.event!.id]);
  });

  it("in memory, a failed batch keeps the events applied before the failure: a retry never applies them again", async () => {
    const applied: string[] = [];
    let failures = 2;
    const p = projection("Once", { maxRetries: 3, retryBaseMillis: 0, retryMaxMillis: 0 })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        if (event.data.title === "second" && failures-- > 0) throw new Error("not yet");
        applied.push(event.data.title);
      })
      .build();
    const app = act().with(Ticket).with(p).build();
    await app.do("open", { stream: "t-1", actor }, { title: "first" });
    const [second] = await app.do("open", { stream: "t-2", actor }, { title: "second" });
    await app.do("open", { stream: "t-3", actor }, { title: "third" });
    await settle(app);
    expect(applied).toEqual(["first", "second", "third"]);
    expect((await store().reactions()).find((r) => r.stream === p.stream)?.at).toBeGreaterThanOrEqual(second.event!.id);
  });

  it("in memory, blocks after maxRetries + 1 failed runs of the failing event, past the events before it", async () => {
    const runs: string[] = [];
    const p = projection("Stuck", { maxRetries: 2, retryBaseMillis: 0, retryMaxMillis: 0 })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        runs.push(event.data.title);
        if (event.data.title === "bad") throw new Error("cannot store it");
      })
      .build();
    const app = act().with(Ticket).with(p).build();
    const [first] = await app.do("open", { stream: "t-1", actor }, { title: "fine" });
    await app.do("open", { stream: "t-2", actor }, { title: "bad" });
    const { blocked } = await settle(app, { allowBlocked: true });
    expect(runs).toEqual(["fine", "bad", "bad", "bad"]);
    expect(blocked.map(({ stream, at }) => ({ stream, at }))).toEqual([{ stream: p.stream, at: first.event!.id }]);
  });

  it("on a store without project, runs the handlers with no handle, then acknowledges (at least once)", async () => {
    const plain = new InMemoryStore();
    Object.defineProperty(plain, "project", { value: undefined });
    await disposeAndExit();
    store(plain);
    const handles: unknown[] = [];
    const rows = new Map<string, string>();
    const p = projection("Plain")
      .with(Ticket)
      .on("TicketOpened", (event, tx) => {
        handles.push(tx);
        rows.set(event.stream, event.data.title);
      })
      .build();
    const app = act().with(Ticket).with(p).build();
    const [snap] = await app.do("open", { stream: "t-1", actor }, { title: "Printer" });
    await settle(app);
    expect(handles).toEqual([undefined]);
    expect([...rows]).toEqual([["t-1", "Printer"]]);
    expect((await plain.reactions()).find((r) => r.stream === p.stream)?.at).toBe(snap.event!.id);
  });

  it("reset projects everything again (the plain rebuild for development)", async () => {
    const rows = new Map<string, string>();
    const p = openTickets(rows);
    const app = act().with(Ticket).with(p).build();
    await app.do("open", { stream: "t-1", actor }, { title: "Printer" });
    await settle(app);
    rows.clear();
    expect(await app.reset(p.stream)).toEqual([p.stream]);
    await settle(app);
    expect([...rows]).toEqual([["t-1", "Printer"]]);
  });
});

describe("read your writes", () => {
  it("waits until the running consumer projected the action's events", async () => {
    const rows = new Map<string, string>();
    const p = openTickets(rows);
    const app = act().with(Ticket).with(p).build();
    app.start({ pollMillis: 1_000 });
    try {
      for (let i = 0; i < 5; i++) {
        const snapshots = await app.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
        await app.projected(p, snapshots);
        expect(rows.get(`t-${i}`)).toBe(`#${i}`);
      }
    } finally {
      await app.stop();
    }
  });

  it("returns at once when the action committed nothing the projection handles", async () => {
    const p = openTickets(new Map());
    const app = act().with(Ticket).with(Counter).with(p).build();
    const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    await expect(app.projected(p, snapshots, { timeoutMillis: 0 })).resolves.toBeUndefined();
  });

  it("says why it gives up: no consumer within the timeout, or a blocked projection", async () => {
    const p = openTickets(new Map());
    const app = act().with(Ticket).with(p).build();
    const snapshots = await app.do("open", { stream: "t-1", actor }, { title: "x" });
    await expect(app.projected(p, snapshots, { timeoutMillis: 50 })).rejects.toThrow(
      /Projection "OpenTickets" did not reach event #\d+ within 50 ms \(it is at #-1\); is a consumer running/
    );
    const broken = projection("Broken", { maxRetries: 0 })
      .with(Ticket)
      .on("TicketOpened", () => {
        throw new Error("disk full");
      })
      .build();
    const other = act().with(Ticket).with(broken).build();
    await settle(other, { allowBlocked: true });
    await expect(other.projected(broken, snapshots, { timeoutMillis: 1_000 })).rejects.toThrow(
      /"Broken" is blocked .*disk full/
    );
    await expect(app.projected(p, snapshots, { timeoutMillis: -1 })).rejects.toThrow(ValidationError);
  });
});

describe("rebuild into a new version", () => {
  it("reports progress, waits for the new version and then switches over", async () => {
    const v1 = new Map<string, string>();
    const v2 = new Map<string, string>();
    const V1 = openTickets(v1);
    const app1 = act().with(Ticket).with(V1).build();
    for (let i = 0; i < 30; i++) await app1.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
    await settle(app1);
    const V2 = projection("OpenTickets", { version: 2 })
      .with(Ticket)
      .on("TicketOpened", (event) => void v2.set(event.stream, event.data.title.toUpperCase()))
      .build();
    const app = act().with(Ticket).with(V1).with(V2).build();
    let serving = v1;
    const progress: number[] = [];
    app.start({ eventLimit: 5, pollMillis: 5 });
    try {
      const done = await app.rebuild(V2, {
        progressMillis: 1,
        onProgress: ({ projected }) => progress.push(projected),
        switchOver: () => {
          serving = v2;
        },
      });
      expect(done).toMatchObject({ stream: "projection:OpenTickets:v2", total: 30, projected: 30, done: true });
    } finally {
      await app.stop();
    }
    expect(serving).toBe(v2);
    expect(serving.get("t-29")).toBe("#29");
    expect(progress.at(-1)).toBe(30);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("with since, finishes at once when no event it handles is that recent, and counts only the recent ones", async () => {
    await act().with(Ticket).build().do("open", { stream: "t-old", actor }, { title: "old" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date();
    const rows = new Map<string, string>();
    const V2 = projection("OpenTickets", { version: 2, since })
      .with(Ticket)
      .on("TicketOpened", (event) => void rows.set(event.stream, event.data.title))
      .build();
    const app = act().with(Ticket).with(V2).build();
    let switched = 0;
    app.start({ pollMillis: 5 });
    try {
      const nothing = await app.rebuild(V2, { timeoutMillis: 1_000, progressMillis: 5, switchOver: () => switched++ });
      expect(nothing).toMatchObject({ total: 0, projected: 0, target: -1, done: true });
      expect(switched).toBe(1);
      const [recent] = await app.do("open", { stream: "t-new", actor }, { title: "new" });
      const done = await app.rebuild(V2, { timeoutMillis: 1_000, progressMillis: 5 });
      expect(done).toMatchObject({ total: 1, projected: 1, target: recent.event!.id, done: true });
    } finally {
      await app.stop();
    }
    expect([...rows.keys()]).toEqual(["t-new"]);
  });

  it("says why it stops: a blocked new version, no consumer within the timeout, bad options", async () => {
    const Broken = projection("OpenTickets", { version: 3, maxRetries: 0 })
      .with(Ticket)
      .on("TicketOpened", () => {
        throw new Error("table missing");
      })
      .build();
    const app = act().with(Ticket).with(Broken).build();
    await app.do("open", { stream: "t-1", actor }, { title: "x" });
    await expect(app.rebuild(Broken, { timeoutMillis: 20, progressMillis: 5 })).rejects.toThrow(
      /did not catch up within 20 ms: 0 of 1 events projected; is a consumer running/
    );
    await settle(app, { allowBlocked: true });
    await expect(app.rebuild(Broken)).rejects.toThrow(
      /projection:OpenTickets:v3\) stopped: it is blocked .*table missing/
    );
    await expect(app.rebuild(Broken, { progressMillis: 0 })).rejects.toThrow(/progressMillis: must be at least 1/);
  });
});

describe("local projections (a read model in each process's memory)", () => {
  /** One process: its own map, and an app with the local projection writing it. */
  function process(name = "OpenTickets") {
    const rows = new Map<string, string>();
    const p = projection(name, { local: true })
      .with(Ticket)
      .on("TicketOpened", (event) => void rows.set(event.stream, event.data.title))
      .on("TicketClosed", (event) => void rows.delete(event.stream))
      .build();
    return { rows, p, app: act().with(Ticket).with(p).build() };
  }

  it("fills every process's own copy from the log, a process started later included, and keeps no position in the store", async () => {
    const a = process();
    const b = process();
    await a.app.do("open", { stream: "t-1", actor }, { title: "Printer" });
    await a.app.do("open", { stream: "t-2", actor }, { title: "Mail" });
    await b.app.do("close", { stream: "t-1", actor }, {});
    await a.app.drain();
    await b.app.drain();
    expect([...a.rows]).toEqual([["t-2", "Mail"]]);
    expect([...b.rows]).toEqual([["t-2", "Mail"]]);
    // A restart: a new process starts empty and projects the whole log at its first drain.
    const c = process();
    expect(c.rows.size).toBe(0);
    await c.app.drain();
    expect([...c.rows]).toEqual([["t-2", "Mail"]]);
    expect((await store().reactions()).map((r) => r.stream)).not.toContain(a.p.stream);
  });

  it("app.projected waits for this process's copy, and says when the app does not register it", async () => {
    const a = process();
    a.app.start({ pollMillis: 1_000 });
    try {
      const snapshots = await a.app.do("open", { stream: "t-3", actor }, { title: "Phone" });
      await a.app.projected(a.p, snapshots);
      expect(a.rows.get("t-3")).toBe("Phone");
    } finally {
      await a.app.stop();
    }
    const other = act().with(Ticket).build();
    await expect(other.projected(a.p, 0, { timeoutMillis: 10 })).rejects.toThrow(
      /"OpenTickets" is local and this app does not register it/
    );
  });

  it("a failing event: the events before it stay applied, it is run again after the retry delay, then blocks here", async () => {
    let failures = 1;
    const seen: string[] = [];
    const p = projection("Flaky", { local: true, maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        if (event.data.title === "bad") throw new Error("cannot store it");
        if (event.data.title === "flaky" && failures-- > 0) throw new Error("not yet");
        seen.push(event.data.title);
      })
      .build();
    const app = act().with(Ticket).with(p).build();
    await app.do("open", { stream: "t-1", actor }, { title: "fine" });
    await app.do("open", { stream: "t-2", actor }, { title: "flaky" });
    await app.drain();
    expect(seen).toEqual(["fine"]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await app.drain();
    expect(seen).toEqual(["fine", "flaky"]);
    const snapshots = await app.do("open", { stream: "t-3", actor }, { title: "bad" });
    await app.drain();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await app.drain();
    await app.drain();
    expect(seen).toEqual(["fine", "flaky"]);
    await expect(app.projected(p, snapshots, { timeoutMillis: 100 })).rejects.toThrow(
      /"Flaky" is blocked at event #\d+ and cannot reach #\d+: Projection "Flaky" failed on event "TicketOpened" #\d+: cannot store it/
    );
  });

  it("is refused with inline, and by app.rebuild", async () => {
    expect(() => projection("Both", { inline: true, local: true })).toThrow(/both inline and local/);
    expect(() => projection("Bad", { local: "yes" as never })).toThrow(ValidationError);
    const { p, app } = process();
    await expect(app.rebuild(p)).rejects.toThrow(/is local: every process rebuilds it from the log when it starts/);
  });
});

describe("inline projections (in memory)", () => {
  /** Open tickets kept inline: written inside each commit; a title "fail" makes the handler throw. */
  function inlineTickets(rows: Map<string, string>, calls: number[] = []) {
    return projection("InlineTickets", { inline: true })
      .with(Ticket)
      .on("TicketOpened", (event) => {
        calls.push(event.id);
        if (event.data.title === "fail") throw new Error("the read model refused it");
        rows.set(event.stream, event.data.title);
      })
      .on("TicketClosed", (event) => void rows.delete(event.stream))
      .build();
  }
  const stored = async (stream: string) => {
    const names: string[] = [];
    await store().query((e) => names.push(e.name), { stream });
    return names;
  };

  it("reads its own writes right after app.do: the handler ran inside the commit, with the committed event", async () => {
    const rows = new Map<string, string>();
    const calls: number[] = [];
    const inline = inlineTickets(rows, calls);
    const app = act().with(Ticket).with(inline).build();
    const [opened] = await app.do("open", { stream: "t-1", actor }, { title: "Printer" });
    expect([...rows]).toEqual([["t-1", "Printer"]]);
    expect(calls).toEqual([opened.event!.id]);
    await app.do("close", { stream: "t-1", actor }, {});
    expect([...rows]).toEqual([]);
    // Nothing to wait for, and no reaction stream: it is not drained.
    await app.projected(inline, [opened], { timeoutMillis: 0 });
    await settle(app);
    expect((await store().reactions()).map((r) => r.stream)).not.toContain(inline.stream);
    expect(calls).toEqual([opened.event!.id]);
  });

  it("fails the action, naming the projection, the event and the cause, and commits nothing", async () => {
    const rows = new Map<string, string>();
    const app = act().with(Ticket).with(inlineTickets(rows)).build();
    const failure = app.do("open", { stream: "t-2", actor }, { title: "fail" });
    await expect(failure).rejects.toThrow(
      /^Projection "InlineTickets" failed on event "TicketOpened" #\d+: the read model refused it$/
    );
    await expect(failure).rejects.toHaveProperty("cause.message", "the read model refused it");
    expect(await stored("t-2")).toEqual([]);
    expect([...rows]).toEqual([]);
    // The stream is untouched: the next action starts it at version 0.
    const [ok] = await app.do("open", { stream: "t-2", actor }, { title: "Mail" });
    expect(ok.event!.version).toBe(0);
    expect([...rows]).toEqual([["t-2", "Mail"]]);
  });

  it("does not run the handlers again when an idempotency key replays the action", async () => {
    const rows = new Map<string, string>();
    const calls: number[] = [];
    const app = act().with(Ticket).with(inlineTickets(rows, calls)).build();
    const target = { stream: "t-3", actor, idempotencyKey: "request-1" };
    const first = await app.do("open", target, { title: "Printer" });
    const again = await app.do("open", target, { title: "Printer" });
    expect(again.map((s) => s.event?.id)).toEqual(first.map((s) => s.event?.id));
    expect(calls).toEqual([first[0].event!.id]);
    expect(await stored("t-3")).toEqual(["TicketOpened"]);
  });

  it("runs beside asynchronous projections and reactions, which still drain as before", async () => {
    const inlineRows = new Map<string, string>();
    const asyncRows = new Map<string, string>();
    const app = act().with(Ticket).with(inlineTickets(inlineRows)).with(openTickets(asyncRows)).build();
    await app.do("open", { stream: "t-4", actor }, { title: "Printer" });
    expect([...inlineRows]).toEqual([["t-4", "Printer"]]);
    expect([...asyncRows]).toEqual([]);
    await settle(app);
    expect([...asyncRows]).toEqual([["t-4", "Printer"]]);
  });

  it("is refused by app.rebuild, which says how to rebuild its read model", async () => {
    const inline = inlineTickets(new Map());
    const app = act().with(Ticket).with(inline).build();
    await expect(app.rebuild(inline)).rejects.toThrow(
      /Projection "InlineTickets" is inline: it has no position to rebuild from.*projection\("InlineTickets", \{ version: 2 \}\)/
    );
  });

  it("on a store without commitInline, fails the action with a clear error and commits nothing", async () => {
    const plain = new InMemoryStore();
    Object.defineProperty(plain, "commitInline", { value: undefined });
    await disposeAndExit();
    store(plain);
    const rows = new Map<string, string>();
    const app = act().with(Ticket).with(inlineTickets(rows)).build();
    await expect(app.do("open", { stream: "t-5", actor }, { title: "Printer" })).rejects.toThrow(
      /Inline projection "InlineTickets" needs a store that runs handlers inside its commit \(Store.commitInline\).*nothing was committed/
    );
    expect(await stored("t-5")).toEqual([]);
    expect([...rows]).toEqual([]);
  });

  for (const seedRun of seedRuns("INLINE", { seed: 24, numRuns: 60 }, 30))
    it(`keeps the read model equal to the log under concurrent actions, failures and async handlers (property, ${seedLabel(seedRun)})`, async () => {
      announce("inline projection property", "INLINE", seedRun);
      const command = fc.record({
        stream: fc.constantFrom("a", "b", "c"),
        title: fc.constantFrom("ok", "ok", "fail"),
        yields: fc.nat(3),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
          await freshStore();
          const written = new Set<number>();
          const inline = projection("Written", { inline: true })
            .with(Ticket)
            .on("TicketOpened", async (event) => {
              // Yields let other actions commit while this one's handler runs.
              for (let i = 0; i < Number(event.data.title.split(":")[1]); i++) await Promise.resolve();
              if (event.data.title.startsWith("fail")) throw new Error("refused");
              written.add(event.id);
            })
            .build();
          const app = act().with(Ticket).with(inline).build();
          const outcomes = await Promise.allSettled(
            commands.map(({ stream, title, yields }) =>
              app.do("open", { stream, actor }, { title: `${title}:${yields}` })
            )
          );
          const ids: number[] = [];
          await store().query((e) => void ids.push(e.id), { names: ["TicketOpened"] });
          expect([...written].sort((x, y) => x - y)).toEqual(ids);
          expect(ids).toHaveLength(outcomes.filter((o) => o.status === "fulfilled").length);
          // A failure is the handler's, or a conflict with a concurrent action on the same stream.
          for (const [i, o] of outcomes.entries())
            if (o.status === "rejected" && !(o.reason instanceof ConcurrencyError)) {
              expect(commands[i].title).toBe("fail");
              expect(o.reason.message).toMatch(/^Projection "Written" failed on event "TicketOpened" #\d+: refused$/);
            }
        }),
        { seed: seedRun.seed, numRuns: seedRun.numRuns, ...replayPath("INLINE") }
      );
    });

  it("refuses an inline option that is not a boolean, and the same inline projection twice", () => {
    expect(() => projection("A", { inline: "yes" as never })).toThrow(ValidationError);
    const inline = inlineTickets(new Map());
    expect(() => act().with(Ticket).with(inline).with(inline)).toThrow(/already registered/);
    expect(() => act().with(inline as never)).toThrow(/no state registered so far emits/);
  });
});
