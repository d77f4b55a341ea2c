/**
 * What a zod transform means for events and snapshots: an event is stored as
 * its schema's output and read back without running input transforms again;
 * a snapshot's fingerprint covers the shape it stores, not defaults.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, state } from "../src/index.js";
import { actor, freshStore } from "./fixtures.js";

beforeEach(async () => {
  await freshStore();
});

describe("transforms run once, when the event is emitted", () => {
  // Dollars in, cents stored: 1.5 becomes 150 once, never 15000.
  const Wallet = state("Wallet", z.object({ cents: z.number() }))
    .init(() => ({ cents: 0 }))
    .emits({ Paid: z.object({ cents: z.number().transform((dollars) => Math.round(dollars * 100)) }) })
    .patch({ Paid: (e, s) => ({ cents: s.cents + e.data.cents }) })
    .on("pay", z.object({ dollars: z.number() }))
    .emit(({ dollars }) => ["Paid", { cents: dollars }])
    .build();

  it("in do, load and queryArray", async () => {
    const app = act().with(Wallet).build();
    const [paid] = await app.do("pay", { stream: "w", actor }, { dollars: 1.5 });
    expect(paid.state.cents).toBe(150);
    const [again] = await app.do("pay", { stream: "w", actor }, { dollars: 1 });
    expect(again.state.cents).toBe(250);
    expect((await app.load(Wallet, "w")).state.cents).toBe(250);
    expect((await app.queryArray({ stream: "w" })).map((e) => e.data)).toEqual([{ cents: 150 }, { cents: 100 }]);
  });

  it("also when the action runs again after a conflict on a cached stream", async () => {
    const one = act().with(Wallet).build();
    const other = act().with(Wallet).build();
    await one.do("pay", { stream: "w2", actor }, { dollars: 1 });
    await other.do("pay", { stream: "w2", actor }, { dollars: 2 });
    // "one" has the stream cached at its first event: the commit conflicts and the action runs again.
    const [paid] = await one.do("pay", { stream: "w2", actor }, { dollars: 3 });
    expect(paid.state.cents).toBe(600);
    expect((await one.queryArray({ stream: "w2" })).map((e) => e.data)).toEqual([
      { cents: 100 },
      { cents: 200 },
      { cents: 300 },
    ]);
  });

  it("an emitted value that is neither valid input nor a described output is refused", async () => {
    const Loose = state("Loose", z.object({ letters: z.number() }))
      .init(() => ({ letters: 0 }))
      .emits({ Said: z.object({ letters: z.string().transform((text) => text.length) }) })
      .patch({ Said: (e, s) => ({ letters: s.letters + e.data.letters }) })
      .on("say", z.object({ value: z.any() }))
      .emit(({ value }) => ["Said", { letters: value }])
      .build();
    const app = act().with(Loose).build();
    // A number is not the transform's input, and a bare transform's output is not described: refused.
    await expect(app.do("say", { stream: "l", actor }, { value: 5 })).rejects.toThrow(/Invalid data of event "Said"/);
    expect(await app.queryArray({ stream: "l" })).toEqual([]);
  });

  it("a bare transform that changes the type is read back as stored", async () => {
    const Words = state("Words", z.object({ letters: z.number() }))
      .init(() => ({ letters: 0 }))
      .emits({ Said: z.object({ letters: z.string().transform((text) => text.length) }) })
      .patch({ Said: (e, s) => ({ letters: s.letters + e.data.letters }) })
      .on("say", z.object({ text: z.string() }))
      // Emitted as the schema's input (text), as the handler's type asks.
      .emit(({ text }) => ["Said", { letters: text }])
      .build();
    const app = act().with(Words).build();
    const [said] = await app.do("say", { stream: "t", actor }, { text: "hello" });
    expect(said.state.letters).toBe(5);
    await app.do("say", { stream: "t", actor }, { text: "hi" });
    expect((await app.load(Words, "t")).state.letters).toBe(7);
    expect((await app.queryArray({ stream: "t" })).map((e) => e.data.letters)).toEqual([5, 2]);
  });
});

describe("a transform from text to a date", () => {
  const at = "2026-03-01T10:00:00.000Z";
  const scheduler = (when: z.ZodType<Date, string>) =>
    state("Schedule", z.object({ at: z.date().optional() }))
      .init(() => ({}))
      .emits({ Scheduled: z.object({ at: when }) })
      .patch({ Scheduled: (e) => ({ at: e.data.at }) })
      .on("schedule", z.object({ at: z.string() }))
      // Emitted as the schema's input (text), as the handler's type asks.
      .emit(({ at }) => ["Scheduled", { at }])
      .on("scheduleDate", z.object({ at: z.date() }))
      // Or emitted as the output, a date: not the input the type asks for, but a described output is kept as it is.
      .emit(({ at }) => ["Scheduled", { at: at as never }])
      .build();

  it.each([
    [
      "a transform piped to z.date()",
      z
        .string()
        .transform((text) => new Date(text))
        .pipe(z.date()),
    ],
    [
      "a codec",
      z.codec(z.iso.datetime(), z.date(), {
        decode: (text) => new Date(text),
        encode: (date) => date.toISOString(),
      }),
    ],
  ])("works in do, load and queryArray with %s", async (_, when) => {
    const Schedule = scheduler(when as z.ZodType<Date, string>);
    const app = act().with(Schedule).build();
    const [scheduled] = await app.do("schedule", { stream: "s", actor }, { at });
    expect(scheduled.state.at).toEqual(new Date(at));
    const [again] = await app.do("scheduleDate", { stream: "s", actor }, { at: new Date(at) });
    expect(again.state.at).toEqual(new Date(at));
    expect((await app.load(Schedule, "s")).state.at).toEqual(new Date(at));
    const events = await app.queryArray({ stream: "s" });
    expect(events.map((e) => e.data.at)).toEqual([new Date(at), new Date(at)]);
  });
});

describe("snapshot fingerprints", () => {
  const build = (schema: z.ZodObject) =>
    state("Fingerprinted", schema)
      .init(() => ({}) as never)
      .emits({ Noted: z.object({}) })
      .patch({ Noted: () => ({}) })
      .on("note", z.object({}))
      .emit(() => ["Noted", {}])
      .build();

  it("do not change with a dynamic default", () => {
    const withDefault = () => z.object({ since: z.date().default(() => new Date(Date.now() + Math.random())) });
    const first = build(withDefault());
    const second = build(withDefault());
    expect(second.version).toBe(first.version);
    expect(build(z.object({ n: z.number().default(Math.random) })).version).toBe(
      build(z.object({ n: z.number() })).version
    );
  });

  it("do not change with transforms that keep the stored shape", () => {
    const plain = build(z.object({ name: z.string(), n: z.number() }));
    const trimmed = build(z.object({ name: z.string().transform((s) => s.trim()), n: z.number() }));
    const piped = build(z.object({ name: z.string(), n: z.string().transform(Number).pipe(z.number()) }));
    expect(trimmed.version).toBe(plain.version);
    expect(piped.version).toBe(plain.version);
  });

  it("change when the stored shape changes", () => {
    expect(build(z.object({ name: z.number() })).version).not.toBe(build(z.object({ name: z.string() })).version);
  });

  it("keep snapshots of a state with a dynamic default usable after a restart", async () => {
    const define = () =>
      state("Stamped", z.object({ count: z.number(), since: z.date().default(() => new Date()) }))
        .init(() => ({ count: 0, since: new Date(0) }))
        .emits({ Counted: z.object({}) })
        .patch({ Counted: (_, s) => ({ count: s.count + 1 }) })
        .on("count", z.object({}))
        .emit(() => ["Counted", {}])
        .snap(() => true)
        .build();
    const before = define();
    await act().with(before).build().do("count", { stream: "st", actor }, {});
    // A restart defines the state again: the snapshot written before is still its own.
    const after = define();
    const loaded = await act().with(after).build().load(after, "st");
    expect(loaded.snaps).toBe(1);
    expect(loaded.state.count).toBe(1);
  });
});
