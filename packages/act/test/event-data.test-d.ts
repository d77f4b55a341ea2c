/**
 * Compile-time contract of event data and action payloads, checked by `tsc`
 * in `npm test` (and `vitest --typecheck`): every `@ts-expect-error` line
 * must fail to compile, or tsc reports it unused.
 *
 * 1. Event data has exactly the fields its schema declares: an extra field
 *    in what an action emits does not compile, nor does reading a field the
 *    schema does not declare.
 * 2. Each side of a schema where it applies: what is passed in and parsed
 *    (`app.do`'s payload, what an action emits) is the schema's input; what
 *    comes out of the parse (an action handler's payload, what patches,
 *    reactions and projections read) is its output.
 */
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { act, type Committed, projection, type State, state, ZodEmpty } from "../src/index.js";
import { projectEvents } from "../src/testing/index.js";
import { actor, Counter } from "./fixtures.js";

const target = { stream: "s", actor };

describe("event data has exactly its schema's fields", () => {
  it("in what an action emits", () => {
    const base = state("Exact", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ A: z.object({ x: z.number() }), B: ZodEmpty })
      .patch({ A: () => ({}), B: () => ({}) });
    base
      .on("one", ZodEmpty)
      // @ts-expect-error "extra" is not a field of A
      .emit(() => ["A", { x: 1, extra: 2 }]);
    base
      .on("many", ZodEmpty)
      // @ts-expect-error "extra" is not a field of A, in a list of events too
      .emit(() => [
        ["A", { x: 1, extra: 2 }],
        ["B", {}],
      ]);
    base
      .on("given", ZodEmpty)
      .given([{ description: "always", valid: () => true }])
      // @ts-expect-error "extra" is not a field of A, after invariants too
      .emit(() => ["A", { x: 1, extra: 2 }]);
    base
      .on("mapped", z.object({ xs: z.array(z.number()) }))
      // @ts-expect-error "extra" is not a field of A, in a mapped list
      .emit(({ xs }) => xs.map((x) => ["A", { x, extra: x }] as const));

    // What still compiles: exact data, a mapped list, nothing, or maybe nothing.
    base
      .on("ok", z.object({ xs: z.array(z.number()) }))
      .emit(() => ["A", { x: 1 }])
      .on("okMany", ZodEmpty)
      .emit(() => [
        ["A", { x: 1 }],
        ["B", {}],
      ])
      .on("okMapped", z.object({ xs: z.array(z.number()) }))
      .emit(({ xs }) => xs.map((x) => ["A", { x }] as const))
      .on("okNothing", ZodEmpty)
      .emit(() => undefined)
      .on("okMaybe", z.object({ go: z.boolean() }))
      .emit(({ go }) => (go ? ["B", {}] : undefined))
      .build();
  });

  it("with a union of shapes: the fields of any member", () => {
    state("Union", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({
        Paid: z.discriminatedUnion("by", [
          z.object({ by: z.literal("card"), last4: z.string() }),
          z.object({ by: z.literal("cash") }),
        ]),
      })
      .patch({ Paid: () => ({}) })
      .on("card", ZodEmpty)
      .emit(() => ["Paid", { by: "card", last4: "4242" }])
      .on("cash", ZodEmpty)
      .emit(() => ["Paid", { by: "cash" }])
      .on("bad", ZodEmpty)
      // @ts-expect-error "tip" is a field of no member
      .emit(() => ["Paid", { by: "cash", tip: 1 }]);
  });

  it("in the events given to projectEvents", () => {
    const Totals = projection("Totals")
      .with(Counter)
      .on("Incremented", () => {})
      .build();
    void projectEvents(Totals, [{ name: "Incremented", data: { by: 1 } }]);
    // @ts-expect-error "extra" is not a field of Incremented
    void projectEvents(Totals, [{ name: "Incremented", data: { by: 1, extra: 2 } }]);
  });

  it("when read by patches, reactions and projections", () => {
    state("Read", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ A: z.object({ x: z.number() }) })
      .patch({
        A: (event) => {
          expectTypeOf(event.data).toEqualTypeOf<Readonly<{ x: number }>>();
          // @ts-expect-error "nope" is not a field of A
          return { n: event.data.nope };
        },
      });
    act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => {
        expectTypeOf(event.data).toEqualTypeOf<Readonly<{ by: number }>>();
        // @ts-expect-error "nope" is not a field of Incremented
        return event.data.nope;
      });
    projection("Reads")
      .with(Counter)
      .on("Incremented", (event) => {
        expectTypeOf(event.data).toEqualTypeOf<Readonly<{ by: number }>>();
        // @ts-expect-error "nope" is not a field of Incremented
        void event.data.nope;
      });
    const app = act().with(Counter).build();
    void app.queryArray({ stream: "c" }).then(([event]) => {
      // @ts-expect-error a field of one event, on a union of events: narrow by name first
      void event.data.by;
      if (event.name === "Incremented") expectTypeOf(event.data.by).toEqualTypeOf<number>();
    });
  });
});

describe("what goes in is the schema's input, what comes out its output", () => {
  const Schedule = state("Schedule", z.object({ at: z.date().optional(), slots: z.number() }))
    .init(() => ({ slots: 0 }))
    .emits({
      Scheduled: z.object({ at: z.string().transform((text) => new Date(text)), slots: z.number().default(1) }),
    })
    .patch({
      Scheduled: (event) => {
        // Patches read the output: the transform ran, the default is filled.
        expectTypeOf(event.data).toEqualTypeOf<Readonly<{ at: Date; slots: number }>>();
        return { at: event.data.at, slots: event.data.slots };
      },
    })
    .on("schedule", z.object({ at: z.iso.datetime(), slots: z.coerce.number().default(1) }))
    .emit((payload) => {
      // The handler receives the parsed payload: the default filled, the coercion done.
      expectTypeOf(payload).toEqualTypeOf<Readonly<{ at: string; slots: number }>>();
      // It emits the event's input: text for the date, and the defaulted field may be left out.
      return ["Scheduled", { at: payload.at }];
    })
    .build();

  it("an action's events are emitted as the event schema's input", () => {
    state("Out", z.object({}))
      .init(() => ({}))
      .emits({ Scheduled: z.object({ at: z.string().transform((text) => new Date(text)) }) })
      .patch({ Scheduled: () => ({}) })
      .on("go", ZodEmpty)
      // @ts-expect-error the input of a transform from text is text, not the date it outputs
      .emit(() => ["Scheduled", { at: new Date() }]);
  });

  it("app.do takes the action schema's input", async () => {
    const app = act().with(Schedule).build();
    expectTypeOf(app.do<"schedule">)
      .parameter(2)
      .toEqualTypeOf<Readonly<{ at: string; slots?: unknown }>>();
    await app.do("schedule", target, { at: "2026-03-01T10:00:00.000Z" });
    await app.do("schedule", target, { at: "2026-03-01T10:00:00.000Z", slots: "2" });
    // @ts-expect-error the payload still has the schema's fields only
    await app.do("schedule", target, { at: "2026-03-01T10:00:00.000Z", extra: 1 });
  });

  it("so does a reaction's app.do", () => {
    const Other = state("Other", z.object({}))
      .init(() => ({}))
      .emits({ Pinged: z.object({ at: z.string().transform((text) => new Date(text)) }) })
      .patch({ Pinged: () => ({}) })
      .on("defaulted", z.object({ by: z.number().default(1) }))
      .emit(() => ["Pinged", { at: "2026-03-01T10:00:00.000Z" }])
      .build();
    act()
      .with(Other)
      .on("Pinged")
      .do(async (event, stream, app) => {
        // Reactions read the output.
        expectTypeOf(event.data.at).toEqualTypeOf<Date>();
        await app.do("defaulted", { stream, actor }, {}, { reactingTo: event });
        // @ts-expect-error the payload still has the schema's fields only
        await app.do("defaulted", { stream, actor }, { by: 1, extra: 1 }, { reactingTo: event });
      })
      .build();
  });

  it("a built state carries both sides", () => {
    expectTypeOf(Schedule).toEqualTypeOf<
      State<
        { at?: Date | undefined; slots: number },
        { Scheduled: { at: Date; slots: number } },
        { schedule: { at: string; slots: number } },
        { Scheduled: { at: string; slots?: number | undefined } },
        { schedule: { at: string; slots?: unknown } }
      >
    >();
    expectTypeOf<Committed<{ Scheduled: { at: Date; slots: number } }, "Scheduled">["data"]>().toEqualTypeOf<
      Readonly<{ at: Date; slots: number }>
    >();
  });
});
