import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, BuilderError, Errors, state, ZodEmpty } from "../src/index.js";
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
