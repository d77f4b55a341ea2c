import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, BuilderError, Errors, projection, state, ZodEmpty } from "../src/index.js";
import { actor, Counter, freshStore } from "./fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const Note = state("Note", z.object({ text: z.string() }))
  .init(() => ({ text: "" }))
  .emits({ Written: z.object({ text: z.string() }) })
  .patch({ Written: (e) => ({ text: e.data.text }) })
  .on("write", z.object({ text: z.string() }))
  .emit(({ text }) => ["Written", { text }])
  .build();

/** Drains until nothing is left. */
async function settle(app: { drain: () => Promise<{ acked: unknown[] }> }) {
  for (let i = 0; i < 20; i++) if (!(await app.drain()).acked.length) return;
}

describe("the act builder", () => {
  it("never lets one branch's reactions leak into another built from the same base", async () => {
    const seen: string[] = [];
    const base = act().with(Counter).with(Note);
    const left = base
      .on("Incremented")
      .do(async () => void seen.push("left"))
      .build();
    const right = base
      .on("Written")
      .do(async () => void seen.push("right"))
      .build();
    expect(left.registry.events.Written.reactions.size).toBe(0);
    expect(right.registry.events.Incremented.reactions.size).toBe(0);
    await left.do("increment", { stream: "c", actor }, { by: 1 });
    await left.do("write", { stream: "n", actor }, { text: "x" });
    await settle(left);
    expect(seen).toEqual(["left"]);
  });

  it("leaves a built app unchanged when its builder is extended afterwards", () => {
    const builder = act().with(Counter);
    const app = builder.build();
    builder
      .on("Incremented")
      .do(async () => {})
      .build();
    expect(app.registry.events.Incremented.reactions.size).toBe(0);
  });

  it("fails loudly when the result of a step is dropped", () => {
    const builder = act();
    builder.with(Counter); // result not kept
    expect(() => builder.build()).toThrow(/register a state with \.with\(State\) and chain the calls/);
    expect(() => builder.build()).toThrow(/each step returns a new builder/);
  });

  it("refuses two different states with the same name", () => {
    const Twin = state("Counter", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ Other: ZodEmpty })
      .patch({ Other: () => ({}) })
      .build();
    expect(() => act().with(Counter).with(Twin)).toThrow(/Another state named "Counter" is already registered/);
    expect(() => act().with(Counter).with(Twin)).toThrow(/names must be unique in an app/);
    expect(() => act().with(Counter).with(Counter).build()).not.toThrow();
  });

  it("accepts a fixed { target, source } as well as a resolver or a stream name", async () => {
    const seen: string[] = [];
    const app = act()
      .with(Note)
      .on("Written")
      .do(async (event, stream) => void seen.push(`${stream}<-${event.stream}`))
      .to({ target: "audit", source: "n1" })
      .build();
    await app.do("write", { stream: "n1", actor }, { text: "a" });
    await app.do("write", { stream: "n2", actor }, { text: "b" });
    await settle(app);
    expect(seen).toEqual(["audit<-n1"]);
  });

  it("runs a reaction routed with .to({ target }) on that stream", async () => {
    const seen: string[] = [];
    const app = act()
      .with(Note)
      .on("Written")
      .do(async (event, stream) => void seen.push(`${stream}<-${event.stream}`))
      .to({ target: "audit" })
      .build();
    await app.do("write", { stream: "n1", actor }, { text: "a" });
    await app.do("write", { stream: "n2", actor }, { text: "b" });
    expect((await app.correlate()).leased.map((l) => l.stream)).toContain("audit");
    await settle(app);
    expect(seen.sort()).toEqual(["audit<-n1", "audit<-n2"]);
  });

  it("keeps reactions registered before a later .with() and leaves the earlier builder without the new state", async () => {
    const seen: string[] = [];
    const first = act()
      .with(Counter)
      .on("Incremented")
      .do(async () => void seen.push("inc"));
    const both = first.with(Note);
    await expect(first.build().do("write" as never, { stream: "n", actor }, { text: "x" } as never)).rejects.toThrow(
      /unknown action "write"/
    );
    const app = both.build();
    await app.do("increment", { stream: "c", actor }, { by: 1 });
    await settle(app);
    expect(seen).toEqual(["inc"]);
  });

  it("says what is wrong when a reaction names an event no registered state emits", () => {
    // Types refuse this; plain JavaScript (or a cast) gets a clear error instead of a TypeError.
    expect(() =>
      act()
        .with(Counter)
        .on("Written" as never)
    ).toThrow(
      /No state registered so far emits "Written": register the state that emits it with \.with\(State\) before \.on\("Written"\)/
    );
    expect(() => act().with(Counter).with(Note).on("Written")).not.toThrow();
  });

  it("says to build the state when .with() gets something else", () => {
    const unbuilt = state("Draft", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ Drafted: ZodEmpty })
      .patch({ Drafted: () => ({}) });
    expect(() => act().with(unbuilt as never)).toThrow(/takes a built state: end the state's chain with \.build\(\)/);
  });

  it("throws a BuilderError with its code, builder and step for every misuse", () => {
    const Twin = state("Counter", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ Other: ZodEmpty })
      .patch({ Other: () => ({}) })
      .build();
    const thrown = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error("expected a throw");
    };
    const cases: Array<[() => unknown, string]> = [
      [() => act().build(), "build"],
      [() => act().with({} as never), "with"],
      [() => act().with(Counter).with(Twin), "with"],
      [
        () =>
          act()
            .with(Counter)
            .on("Written" as never),
        "on",
      ],
    ];
    for (const [run, step] of cases) {
      const error = thrown(run);
      expect(error).toBeInstanceOf(BuilderError);
      expect(error).toMatchObject({ name: Errors.BuilderError, builder: "act", step });
    }
  });
});

describe("reaction names", () => {
  const keys = (app: { registry: { events: Record<string, { reactions: Map<string, unknown> }> } }, event: string) => [
    ...app.registry.events[event].reactions.keys(),
  ];

  it("are the handler's name, the `name` option, or `reaction` for an anonymous handler — whatever was registered before", () => {
    const Totals = projection("Totals")
      .with(Note)
      .on("Written", () => {})
      .build();
    const app = act()
      .with(Note)
      .with(Totals)
      .on("Written")
      .do(async function notify() {})
      .on("Written")
      .do(async () => {}, { name: "audit" })
      .on("Written")
      .do(async () => {})
      .build();
    expect(keys(app, "Written")).toEqual(["projection:Totals", "notify", "audit", "reaction"]);
    // Without the projection, the same keys: a registration never renames another.
    const without = act()
      .with(Note)
      .on("Written")
      .do(async function notify() {})
      .build();
    expect(keys(without, "Written")).toEqual(["notify"]);
  });

  it("answer to the position-numbered names of earlier releases, and to `renamedFrom`", () => {
    const Totals = projection("Totals")
      .with(Note)
      .on("Written", () => {})
      .build();
    const app = act()
      .with(Note)
      .with(Totals)
      .on("Written")
      .do(async function notify() {})
      .on("Written")
      .do(async function reserve() {}, { renamedFrom: ["book", "book#7"] })
      .build();
    // (Not destructured into `notify` and `reserve`: a bundler renames a function whose name
    // another binding in its scope takes — one reason to give production reactions a `name`.)
    const aliases = Object.fromEntries([...app.registry.events.Written.reactions].map(([k, r]) => [k, r.aliases]));
    // Registered second, so numbered #2 then; #1..#3 cover a release that registered fewer or more before it.
    expect(aliases.notify).toEqual(["notify#2", "notify#1", "notify#3"]);
    expect(aliases.reserve).toEqual(["book", "book#7", "reserve#3", "reserve#1", "reserve#2"]);
  });

  it("refuse a second reaction with the same name on one event, saying how to name it", () => {
    const twice = () =>
      act()
        .with(Note)
        .on("Written")
        .do(async () => {})
        .on("Written")
        .do(async () => {});
    expect(twice).toThrow(BuilderError);
    expect(twice).toThrow(
      /already has a reaction named "reaction": give this one a name of its own.*name: "reaction-2"/
    );
    const named = () =>
      act()
        .with(Note)
        .on("Written")
        .do(async function notify() {})
        .on("Written")
        .do(async () => {}, { name: "notify" });
    expect(named).toThrow(/already has a reaction named "notify"/);
    // The same name on two events is two reactions.
    expect(() =>
      act()
        .with(Note)
        .with(Counter)
        .on("Written")
        .do(async function notify() {})
        .on("Incremented")
        .do(async function notify() {})
        .build()
    ).not.toThrow();
  });

  it("refuse invalid names and former names another reaction answers to", () => {
    const base = act().with(Note).on("Written");
    for (const name of ["", "a/b", "a#1", "projection:x", "x".repeat(201)])
      expect(() => base.do(async () => {}, { name })).toThrow(/is not a valid reaction name/);
    expect(() => base.do(async () => {}, { name: 7 as never })).toThrow(/name must be a string/);
    expect(() => base.do(async () => {}, { renamedFrom: "a/b" })).toThrow(/renamedFrom "a\/b" is not a reaction name/);
    const one = base.do(async function notify() {}, { renamedFrom: "mail" });
    expect(() => one.on("Written").do(async function other() {}, { renamedFrom: "mail" })).toThrow(
      /claims the name "mail", which reaction "notify" already answers to/
    );
    expect(() => one.on("Written").do(async function other() {}, { renamedFrom: "notify" })).toThrow(
      /claims the name "notify"/
    );
  });
});
