/**
 * Compile-time contract of the builders, checked by `tsc` in `npm test`:
 * every `@ts-expect-error` line must fail to compile, or tsc reports it unused.
 */
import { z } from "zod";
import {
  act,
  InMemoryStore,
  type InlineCommit,
  projection,
  type ActorSchema,
  type CausationEventSchema,
  type CommittedMetaSchema,
  type EventMetaSchema,
  type QuerySchema,
  type TraceContextSchema,
  state,
  type TargetSchema,
  ZodEmpty,
  type Actor,
  type CausationEvent,
  type CommittedMeta,
  type EventMeta,
  type Query,
  type Target,
  type TraceContext,
} from "../src/index.js";
import { actor, Counter } from "./fixtures.js";

const app = act().with(Counter).build();
const target = { stream: "c", actor };

export async function inference() {
  const [snap] = await app.do("increment", target, { by: 1 });
  const count: number = snap.state.count;
  // @ts-expect-error misspelt action name
  await app.do("incremnt", target, { by: 1 });
  // @ts-expect-error wrong payload type
  await app.do("increment", target, { by: "1" });
  // @ts-expect-error missing payload field
  await app.do("increment", target, {});
  return count;
}

export function reactions() {
  act()
    .with(Counter)
    // @ts-expect-error misspelt event name
    .on("Incremnted");
  act()
    .with(Counter)
    .on("Incremented")
    .do(async (event) => {
      const by: number = event.data.by;
      // @ts-expect-error event data is typed by the event name
      const wrong: string = event.data.by;
      return [by, wrong];
    })
    .build();

  // Where a reaction runs: a resolver typed by the event, a stream name, or a fixed { target, source? }.
  const base = act()
    .with(Counter)
    .on("Incremented")
    .do(async () => {});
  base.to((event) => ({ target: `audit-${event.data.by}` })).build();
  base.to("audit").build();
  base.to({ target: "audit", source: "c" }).build();
  base.void().build();
  // @ts-expect-error a fixed route needs a target
  base.to({ source: "c" });
  // @ts-expect-error a route is a resolver, a stream name or { target, source? }
  base.to(42);
  // @ts-expect-error the resolver's event is typed: Incremented's "by" is a number, not a stream name
  base.to((event) => ({ target: event.data.by }));
}

export function builders() {
  state("Missing", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: ZodEmpty, B: ZodEmpty })
    // @ts-expect-error missing patch handler for B
    .patch({ A: () => ({}) });

  state("BadEmit", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: z.object({ x: z.number() }) })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    // @ts-expect-error emits an undeclared event
    .emit(() => ["Nope", { x: 1 }]);

  state("BadData", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: z.object({ x: z.number() }) })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    // @ts-expect-error emits wrong event data
    .emit(() => ["A", { x: "1" }]);

  state("Dup", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: ZodEmpty })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    .emit(() => ["A", {}])
    // @ts-expect-error duplicate action name
    .on("go", ZodEmpty);
}

// Every type alias and interface the contract lists is exported (tsc fails otherwise).
export type Contract = [
  import("../src/index.js").Store,
  import("../src/index.js").ActBuilder<{}, {}, {}>,
  import("../src/index.js").ActionBuilder<{}, {}, { a: {} }, "a">,
  import("../src/index.js").ActionHandler<{}, {}, { a: {} }, "a">,
  import("../src/index.js").ActionHandlers<{}, {}, {}>,
  import("../src/index.js").Actor,
  import("../src/index.js").AsCommitted<typeof Counter, "Incremented">,
  import("../src/index.js").CausationEvent,
  import("../src/index.js").Committed<{ A: {} }, "A">,
  import("../src/index.js").CommittedMeta,
  import("../src/index.js").CommittedOf<{ A: {} }>,
  import("../src/index.js").Config,
  import("../src/index.js").Disposable,
  import("../src/index.js").Disposer,
  import("../src/index.js").Drain<{}>,
  import("../src/index.js").DrainOptions,
  import("../src/index.js").Emitted<{ A: {} }>,
  import("../src/index.js").EmptySchema,
  import("../src/index.js").Environment,
  import("../src/index.js").EventMeta,
  import("../src/index.js").EventRegister<{}>,
  import("../src/index.js").ExitCode,
  import("../src/index.js").Fetch<{}>,
  import("../src/index.js").GivenHandlers<{}, {}>,
  import("../src/index.js").Invariant<{}>,
  import("../src/index.js").Lease,
  import("../src/index.js").LogLevel,
  import("../src/index.js").Message<{ A: {} }, "A">,
  import("../src/index.js").Package,
  import("../src/index.js").Patch<{}>,
  import("../src/index.js").PatchHandler<{}, { A: {} }, "A">,
  import("../src/index.js").PatchHandlers<{}, {}>,
  import("../src/index.js").Poll,
  import("../src/index.js").Query,
  import("../src/index.js").Reaction<{ A: {} }, "A">,
  import("../src/index.js").ReactionHandler<{ A: {} }, "A">,
  import("../src/index.js").ReactionOptions,
  import("../src/index.js").ReactionPayload<{ A: {} }, "A">,
  import("../src/index.js").ReactionResolver<{ A: {} }, "A">,
  import("../src/index.js").ReactionsRegister<{ A: {} }, "A">,
  import("../src/index.js").Registry<{}, {}, {}>,
  import("../src/index.js").Schema,
  import("../src/index.js").SchemaRegister<{}>,
  import("../src/index.js").Schemas,
  import("../src/index.js").Snapshot<{}, {}>,
  import("../src/index.js").State<{}, {}, {}>,
  import("../src/index.js").StateBuilder<{}, {}, {}>,
  import("../src/index.js").StateSchema<{}>,
  import("../src/index.js").StateSchemas<{}, {}, {}>,
  import("../src/index.js").Target,
  import("../src/index.js").ZodTypes<{}>,
];

// The metadata types are written out field by field (so the API reference can
// describe each field); they must stay exactly what their schemas parse to.
/** Deep structure of a type: intersections merged, optional fields kept optional. */
type Shape<T> = T extends Date ? T : T extends object ? { [K in keyof T]: Shape<T[K]> } : T;
/** True only when X and Y have the same fields, optional the same way, with the same types. */
type Same<X, Y> = (<T>() => T extends Shape<X> ? 1 : 2) extends <T>() => T extends Shape<Y> ? 1 : 2 ? true : false;

export const typesMatchSchemas: [true, true, true, true, true, true, true] = [
  true as Same<Actor, z.infer<typeof ActorSchema>>,
  true as Same<Target, z.infer<typeof TargetSchema>>,
  true as Same<CausationEvent, z.infer<typeof CausationEventSchema>>,
  true as Same<EventMeta, z.infer<typeof EventMetaSchema>>,
  true as Same<CommittedMeta, z.infer<typeof CommittedMetaSchema>>,
  true as Same<Query, z.infer<typeof QuerySchema>>,
  true as Same<TraceContext, z.infer<typeof TraceContextSchema>>,
];

// The comparison itself tells a missing, an extra or a differently optional field apart.
export const sameCatchesDrift: [false, false, false, true] = [
  false as Same<{ a: string }, { a: string; b: string }>,
  false as Same<{ a: string }, { a?: string }>,
  false as Same<{ a: { b: number } }, { a: { b: string } }>,
  true as Same<{ a: string } & { b: number }, { a: string; b: number }>,
];

export function projections() {
  // Handlers are typed by the events' schemas.
  const Totals = projection<Map<string, number>>("Totals")
    .with(Counter)
    .on("Incremented", (event, rows) => {
      const by: number = event.data.by;
      rows.set(event.stream, by);
    })
    .build();
  act().with(Counter).with(Totals).build();
  projection("Batched")
    .with(Counter)
    .batch(["Incremented", "Tagged"], (events) => {
      for (const e of events) if (e.name === "Tagged") e.data.tag.toUpperCase();
    })
    .build();
  const counting = projection("Typo").with(Counter);
  // @ts-expect-error an event no state added with .with emits
  counting.on("Incremnted", () => {});
  // @ts-expect-error the data's fields keep their types
  counting.on("Incremented", (event) => event.data.by.toUpperCase());
  const handled = projection<Map<string, number>>("Handle").with(Counter);
  // @ts-expect-error the handle is the type the projection declares
  handled.on("Incremented", (_e, rows: Set<string>) => rows);
  // Inline: the same builder, typed the same way, registered the same way.
  const Inline = projection<Map<string, number>>("Inline", { inline: true })
    .with(Counter)
    .on("Incremented", (event, rows) => void rows.set(event.stream, event.data.by))
    .build();
  act().with(Counter).with(Inline).build();
  // @ts-expect-error inline is a boolean
  projection("Wrong", { inline: "yes" });
  // A store's inline commit hands the work the committed events, typed by the commit's messages.
  const commit: InlineCommit<{ Incremented: { by: number } }> = {
    stream: "c-1",
    messages: [{ name: "Incremented", data: { by: 1 } }],
    meta: { correlation: "c", causation: {} },
  };
  void new InMemoryStore().commitInline(commit, (events) => events.map((e) => e.data.by.toFixed()));
  const wrong: InlineCommit<{ Incremented: { by: number } }> = {
    ...commit,
    // @ts-expect-error a message must carry its event's data
    messages: [{ name: "Incremented", data: { by: "1" } }],
  };
  void wrong;
}

/** The options objects of `do`, `load`, `projected` and `startCorrelations` keep inference end to end. */
export async function optionsObjects() {
  const [cause] = await app.do("increment", target, { by: 1 });
  // The action name still narrows the payload when options follow it.
  const [snap] = await app.do("increment", target, { by: 2 }, { reactingTo: cause.event, skipValidation: false });
  const count: number = snap.state.count;
  // @ts-expect-error wrong payload type, with options
  await app.do("increment", target, { by: "2" }, { reactingTo: cause.event });
  // @ts-expect-error an option do does not have
  await app.do("increment", target, { by: 2 }, { reactingTo: cause.event, retries: 3 });
  // @ts-expect-error skipValidation is a boolean
  await app.do("increment", target, { by: 2 }, { skipValidation: "yes" });
  // The old shape still compiles (deprecated): an event, then a boolean.
  await app.do("increment", target, { by: 2 }, cause.event, true);
  // @ts-expect-error the old shape's fifth argument alone, after options, is not a call shape
  await app.do("increment", target, { by: 2 }, {}, true);

  // load: the snapshot and the callback are typed by the state.
  const then = await app.load(Counter, "c", { at: { version: 1 }, onSnapshot: (s) => s.state.tags.join() });
  const tags: string[] = then.state.tags;
  // @ts-expect-error a point in time names one of id, version or time
  await app.load(Counter, "c", { at: { stream: 1 } });
  // @ts-expect-error the callback gets the state's snapshot
  await app.load(Counter, "c", { onSnapshot: (s) => s.state.missing });

  const Totals = projection("Totals")
    .with(Counter)
    .on("Incremented", () => {})
    .build();
  await app.projected(Totals, [snap], { timeoutMillis: 1_000 });
  // @ts-expect-error timeoutMillis is a number
  await app.projected(Totals, [snap], { timeoutMillis: "1s" });

  const started: boolean = app.startCorrelations({
    query: { after: 0 },
    intervalMillis: 1_000,
    onCorrelated: (l) => l[0].stream,
  });
  // @ts-expect-error startCorrelations takes one options object
  app.startCorrelations({}, 1_000);
  app.stopCorrelations();
  const { lastId } = await app.correlate();
  const events = await app.queryArray({ stream: "c" });
  return { count, tags, started, lastId, events };
}

// A handler's `schedule` types the payload of an action its state declared before, and takes any other
// action's (checked against the app when it runs).
state("Typed", z.object({}))
  .init(() => ({}))
  .emits({ Done: ZodEmpty })
  .patch({ Done: () => ({}) })
  .on("remind", z.object({ note: z.string() }))
  .emit(() => ["Done", {}])
  .on("start", ZodEmpty)
  .emit((_, __, ___, { schedule, cancel }) => {
    schedule({ id: "ok", action: "remind", payload: { note: "call" }, afterMillis: 1 });
    // @ts-expect-error the payload of a declared action is typed
    schedule({ id: "bad", action: "remind", payload: { note: 1 }, afterMillis: 1 });
    schedule({ id: "other", action: "elsewhere", payload: { anything: true }, afterMillis: 1 });
    cancel("ok", "other");
    return ["Done", {}];
  });
