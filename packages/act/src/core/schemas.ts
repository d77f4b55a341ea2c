import { z } from "zod";
import { nativeMatcher } from "./plain-shape.js";

/**
 * The zod schema of an empty payload: an object with no keys.
 *
 * Use it for actions or events that carry no data.
 *
 * @stable
 * @example
 * ```ts
 * import { z } from "zod";
 * import { state, ZodEmpty } from "@act-root/act";
 * const Light = state("Light", z.object({ on: z.boolean() }))
 *   .init(() => ({ on: false }))
 *   .emits({ SwitchedOn: ZodEmpty })
 *   .patch({ SwitchedOn: () => ({ on: true }) })
 *   .on("switchOn", ZodEmpty)
 *   .emit(() => ["SwitchedOn", {}])
 *   .build();
 * ```
 */
export const ZodEmpty = z.record(z.string(), z.never());

/**
 * Schema of an {@link Actor}: who asks for an action.
 *
 * @stable
 * @example
 * ```ts
 * ActorSchema.parse({ id: "u-1", name: "Ada" }); // ok
 * ```
 */
export const ActorSchema = z.object({
  /** Stable identifier of the actor (a user id, a service name). */
  id: z.string(),
  /** Human-readable name, used in logs and invariants. */
  name: z.string(),
});

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The longest stream name any store accepts, in characters (Unicode code points).
 *
 * @stable
 */
export const MAX_STREAM_LENGTH = 256;

/**
 * The rules every store applies to a name it keeps (a stream, an idempotency
 * key, an event name, a correlation id): not empty, at most
 * {@link MAX_STREAM_LENGTH} characters, no NUL character (PostgreSQL text
 * cannot hold one) and no lone UTF-16 surrogate (some stores would silently
 * turn it into another name). One definition, so every store refuses the same
 * names with the same message.
 */
const nameSchema = (what: string) => {
  const schema = z
    .string()
    .min(1, `${what} must not be empty`)
    .max(MAX_STREAM_LENGTH, `${what} must be at most ${MAX_STREAM_LENGTH} characters`)
    .refine((name) => !name.includes("\u0000"), `${what} must not contain a NUL character`)
    .refine(wellFormed, `${what} must be a well-formed string (it has a lone UTF-16 surrogate)`);
  // The same rules without zod, for the names checked on every action and
  // commit; zod still parses a name that fails them, for the message.
  nativeMatcher(schema, isName);
  return schema;
};

/** Characters (Unicode code points) in `text`, as zod counts a string's length. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Whether `text` has no lone surrogate: the engine's own check where it has
 * one (Node 20 and every current runtime; about half the time of the
 * pattern, and names are checked on every commit), else the pattern.
 */
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

/**
 * The name rules of {@link nameSchema}, checked directly. Lengths count
 * characters, as zod does: a name of UTF-16 units past the limit may still
 * fit when some are pairs (an emoji is one character, two units).
 */
const isName = (value: unknown) =>
  typeof value === "string" &&
  value.length >= 1 &&
  (value.length <= MAX_STREAM_LENGTH || characters(value) <= MAX_STREAM_LENGTH) &&
  !value.includes("\u0000") &&
  wellFormed(value);

/**
 * Schema of a stream name: a non-empty, well-formed string (no NUL character,
 * no lone UTF-16 surrogates, which some stores would silently turn into
 * another name) of at most {@link MAX_STREAM_LENGTH} characters. Every store
 * checks names with it, so a name one store accepts is accepted by all of
 * them.
 *
 * @stable
 * @example
 * ```ts
 * StreamSchema.parse("ticket-1"); // ok
 * StreamSchema.parse("x".repeat(300)); // throws: at most 256 characters
 * ```
 */
export const StreamSchema = nameSchema("stream name");

/**
 * Schema of any other name a store keeps or looks up — an idempotency key, an
 * event name, a correlation id, a state's snapshot name — with the same rules
 * as {@link StreamSchema}: not empty, at most {@link MAX_STREAM_LENGTH}
 * characters, no NUL, no lone surrogate.
 *
 * @stable
 * @example
 * ```ts
 * NameSchema.parse("request-42"); // ok
 * NameSchema.safeParse("a\u0000b").success; // false
 * ```
 */
export const NameSchema = nameSchema("name");

/**
 * Schema of a {@link Target}: the stream an action is addressed to, who asks
 * for it and, optionally, the version the caller expects the stream to be at.
 *
 * @stable
 * @example
 * ```ts
 * TargetSchema.parse({ stream: "ticket-1", actor: { id: "u-1", name: "Ada" } });
 * ```
 */
export const TargetSchema = z.object({
  /** Name of the stream (exact match; see {@link StreamSchema} for the rules). */
  stream: StreamSchema,
  /** Who asks for the action. */
  actor: ActorSchema,
  /** The version the caller last saw; the commit fails with a ConcurrencyError if the stream moved. */
  expectedVersion: z.number().int().min(-1).optional(),
  /**
   * Makes the action idempotent on this stream: repeating it with the same
   * key returns the first outcome and commits nothing (until the store
   * forgets the key — a day by default). Use one key per intended action,
   * e.g. a request id a client retries with.
   */
  idempotencyKey: nameSchema("idempotency key").optional(),
});

/**
 * Schema of a {@link CausationEvent}: the committed event a reaction was
 * handling when it caused a new action.
 *
 * @stable
 * @example
 * ```ts
 * CausationEventSchema.parse({ id: 7, name: "TicketOpened", stream: "ticket-1" });
 * ```
 */
export const CausationEventSchema = z.object({
  /** Global position of the causing event. */
  id: z.number().int(),
  /** Name of the causing event. */
  name: z.string(),
  /** Stream of the causing event. */
  stream: z.string(),
});

/**
 * Schema of a {@link TraceContext}: the W3C trace context of the action that
 * committed an event (`traceparent`, and `tracestate` when the trace has one).
 *
 * @stable
 * @example
 * ```ts
 * TraceContextSchema.parse({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
 * ```
 */
export const TraceContextSchema = z.object({
  /** `version-traceid-spanid-flags`, lowercase hex, as the W3C Trace Context header. */
  traceparent: z.string().regex(/^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/, "not a W3C traceparent"),
  /** Vendor-specific trace state, as the W3C `tracestate` header (at most 512 characters). */
  tracestate: z.string().max(512).optional(),
});

/**
 * Schema of {@link EventMeta}: the metadata stored with every committed event —
 * its correlation id and what caused it.
 *
 * @stable
 * @example
 * ```ts
 * EventMetaSchema.parse({ correlation: "c-1", causation: {} });
 * ```
 */
export const EventMetaSchema = z.object({
  /** Shared by every event of one causal chain (an action and all the reactions it triggers). */
  correlation: z.string(),
  /** What caused the event. */
  causation: z.object({
    /** The action (name and target) whose handler emitted the event. */
    action: TargetSchema.extend({
      /** The action's name. */
      name: z.string(),
    }).optional(),
    /** The event a reaction was handling when it asked for that action. */
    event: CausationEventSchema.optional(),
  }),
  /** The trace context of the action that committed the event, when instrumentation was on. */
  trace: TraceContextSchema.optional(),
});

/**
 * Schema of {@link CommittedMeta}: what the store adds to an event when it
 * commits it — global position, stream, version, time and metadata.
 *
 * @stable
 * @example
 * ```ts
 * CommittedMetaSchema.parse({
 *   id: 0, stream: "a", version: 0, created: new Date(),
 *   meta: { correlation: "c-1", causation: {} },
 * });
 * ```
 */
export const CommittedMetaSchema = z.object({
  /** Global position in the store, strictly increasing. */
  id: z.number().int(),
  /** Stream the event belongs to. */
  stream: z.string(),
  /** Position within the stream: 0, 1, 2… without gaps. */
  version: z.number().int(),
  /** When the event was committed. */
  created: z.date(),
  /** Correlation and causation. */
  meta: EventMetaSchema,
});

/**
 * Schema of a {@link Query} over the event log. Every filter is optional and
 * they combine with AND.
 *
 * @stable
 * @example
 * ```ts
 * QuerySchema.parse({ stream: "ticket-1", backward: true, limit: 10 });
 * ```
 */
export const QuerySchema = z.object({
  /** Only events of this stream (exact name). */
  stream: StreamSchema.optional(),
  /** Only events with one of these names. */
  names: z.array(nameSchema("event name")).optional(),
  /** Only events with one of these ids. */
  ids: z.array(z.number().int()).optional(),
  /** Only events with an id lower than this. */
  before: z.number().int().optional(),
  /** Only events with an id greater than this. */
  after: z.number().int().optional(),
  /** At most this many events. */
  limit: z.number().int().min(1).optional(),
  /** Only events created before this time. */
  created_before: z.date().optional(),
  /** Only events created after this time. */
  created_after: z.date().optional(),
  /** Newest first instead of oldest first. */
  backward: z.boolean().optional(),
  /** Only events of this correlation id. */
  correlation: nameSchema("correlation").optional(),
  /** Include snapshot events (excluded by default). */
  with_snaps: z.boolean().optional(),
  /**
   * With `stream`: the snapshot version of a state definition (its
   * `State.version`, e.g. `"Account@534da65b.0"` — not the bare name) whose
   * latest snapshot event on the stream the read starts at (included),
   * returning every event after it — what `load` reads. The whole stream when
   * no snapshot carries that version.
   */
  from_snapshot: nameSchema("snapshot name").optional(),
});

// The types below are written out, field by field, rather than inferred from
// the schemas (`z.infer<typeof ActorSchema>`): that way editors and the API
// reference show each field with its description. test/types.test-d.ts fails
// to compile if a type and its schema ever disagree.

/**
 * Who asks for an action. Validated by {@link ActorSchema}.
 *
 * @stable
 * @example
 * ```ts
 * const ada: Actor = { id: "u-1", name: "Ada" };
 * ```
 */
export type Actor = {
  /** Stable identifier of the actor (a user id, a service name). */
  id: string;
  /** Human-readable name, used in logs and invariants. */
  name: string;
};

/**
 * Where an action goes: the stream, the actor and an optional expected
 * version or idempotency key. Validated by {@link TargetSchema}.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#optimistic-concurrency) — explains expected versions.
 * @example
 * ```ts
 * const target: Target = { stream: "calc-1", actor: { id: "u-1", name: "Ada" }, expectedVersion: 3 };
 * ```
 */
export type Target = {
  /** Name of the stream (exact match; see {@link StreamSchema} for the rules). */
  stream: string;
  /** Who asks for the action. */
  actor: Actor;
  /**
   * The version the caller last saw (-1 for a stream with no events); the
   * commit fails with a {@link ConcurrencyError} if the stream is at another one.
   * Omitted, no check.
   */
  expectedVersion?: number;
  /**
   * Makes the action idempotent on this stream: repeating it with the same
   * key returns the first outcome and commits nothing (until the store
   * forgets the key — a day by default). Use one key per intended action,
   * e.g. a request id a client retries with. 1 to 256 characters.
   */
  idempotencyKey?: string;
};

/**
 * The event a reaction handled when it caused an action. Validated by
 * {@link CausationEventSchema}.
 *
 * @stable
 * @example
 * ```ts
 * const cause: CausationEvent = { id: 7, name: "TicketOpened", stream: "ticket-1" };
 * ```
 */
export type CausationEvent = {
  /** Global position of the causing event. */
  id: number;
  /** Name of the causing event. */
  name: string;
  /** Stream of the causing event. */
  stream: string;
};

/**
 * Correlation and causation stored with every event. Validated by
 * {@link EventMetaSchema}.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#correlation-and-causation) — explains correlation and causation.
 * @example
 * ```ts
 * const meta: EventMeta = { correlation: "c-1", causation: { event: { id: 7, name: "Opened", stream: "t-1" } } };
 * ```
 */
export type EventMeta = {
  /** Shared by every event of one causal chain (an action and all the reactions it triggers). */
  correlation: string;
  /** What caused the event: the action, and the event a reaction was handling when it asked for it. */
  causation: {
    /** The action whose handler emitted the event: its {@link Target} and its `name`. */
    action?: Target & {
      /** The action's name. */
      name: string;
    };
    /** The event a reaction was handling when it asked for that action. */
    event?: CausationEvent;
  };
  /**
   * The trace context of the action that committed the event, kept only
   * while instrumentation is on (see `observe`): the span of every reaction
   * the event causes, in any process and at any later time, links to it.
   */
  trace?: TraceContext;
};

/**
 * The W3C trace context an event keeps of the action that committed it.
 * Validated by {@link TraceContextSchema}.
 *
 * @stable
 * @see [Observability](/docs/guides/observability#causation-across-processes) — explains how reactions link to it.
 * @example
 * ```ts
 * const trace: TraceContext = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
 * ```
 */
export type TraceContext = {
  /** `version-traceid-spanid-flags`, lowercase hex, as the W3C Trace Context header. */
  traceparent: string;
  /** Vendor-specific trace state, as the W3C `tracestate` header. */
  tracestate?: string;
};

/**
 * What the store adds to a committed event. Validated by
 * {@link CommittedMetaSchema}.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#anatomy-of-a-committed-event) — explains each field.
 * @example
 * ```ts
 * const { id, stream, version, created, meta }: CommittedMeta = event;
 * ```
 */
export type CommittedMeta = {
  /** Global position in the store, strictly increasing. */
  id: number;
  /** Stream the event belongs to. */
  stream: string;
  /** Position within the stream: 0, 1, 2… without gaps. */
  version: number;
  /** When the event was committed. */
  created: Date;
  /** Correlation and causation. */
  meta: EventMeta;
};

/**
 * Filters for reading the event log: every one is optional, and they
 * combine with AND. Validated by {@link QuerySchema}.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#reading-the-log) — shows queries.
 * @example
 * ```ts
 * const lastTen: Query = { stream: "calc-1", backward: true, limit: 10 };
 * ```
 */
export type Query = {
  /** Only events of this stream (exact name). */
  stream?: string;
  /** Only events with one of these names. */
  names?: string[];
  /** Only events with one of these ids (in any order; events still come in id order). */
  ids?: number[];
  /** Only events with an id lower than this. */
  before?: number;
  /** Only events with an id greater than this. */
  after?: number;
  /** At most this many events (1 or more). */
  limit?: number;
  /** Only events created before this time. */
  created_before?: Date;
  /** Only events created after this time. */
  created_after?: Date;
  /** Newest first instead of oldest first. */
  backward?: boolean;
  /** Only events of this correlation id. */
  correlation?: string;
  /** Include snapshot events (excluded by default). */
  with_snaps?: boolean;
  /**
   * With `stream`: the snapshot version of a state definition (its
   * `State.version`, e.g. `"Account@534da65b.0"` — not the bare name) whose
   * latest snapshot event on the stream the read starts at (included),
   * returning every event after it — what `load` reads. The whole stream when
   * no snapshot carries that version.
   */
  from_snapshot?: string;
};

/**
 * The name of snapshot events: when a state's `.snap` rule holds, its state is
 * committed to the stream as an event of this name, so later loads start there.
 * Queries skip these events unless `with_snaps` is set.
 *
 * @stable
 * @see [State management](/docs/concepts/state-management#snapshots) — explains snapshots.
 * @example
 * ```ts
 * await app.queryArray({ stream: "calc-1", with_snaps: true, names: [SNAP_EVENT] });
 * ```
 */
export const SNAP_EVENT = "__snapshot__";
