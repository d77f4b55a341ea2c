import type { z } from "zod";
import type { Committed, CommittedOf, Schema, Schemas, State, Upcaster } from "./action.js";
import type { Projection } from "./projection.js";
import type { Dispatcher } from "./app.js";
import type { Query } from "../core/schemas.js";
import type { PersonalFields } from "./personal.js";
import type { BlockedLease, Lease } from "./lease.js";

/**
 * The event a reaction handles: the committed event of name `K`.
 *
 * @stable
 * @example
 * ```ts
 * const payload: ReactionPayload<{ Opened: { title: string } }, "Opened"> = event;
 * ```
 */
export type ReactionPayload<E extends Schemas, K extends keyof E> = Committed<E, K>;

/**
 * What a running handler knows about its lease, the fourth argument of a
 * {@link ReactionHandler}.
 *
 * The lease makes the handler the only one running its stream's events,
 * for as long as it lasts. `signal` aborts the moment that may no longer
 * hold: a renewal was refused (an operator reset or unblocked the stream,
 * or another drainer holds it), a renewal failed (the store did not answer,
 * so the lease may be running out unrenewed), or the lease's deadline passed
 * without a renewal (the process was paused or starved). From then on
 * another drainer may run the same event: stop, and let the retry do the
 * work. The `app` the handler got refuses actions once the signal aborted.
 *
 * Calls to other systems can still overlap in the moments before the abort
 * is seen, or when a process stops after the call and before its progress
 * is recorded: make them idempotent with the event's id (one effect per
 * event and reaction), or with `token` where the other system can refuse
 * an older one.
 *
 * @stable
 * @see [Guarantees](/docs/concepts/guarantees#reactions) — what runs exactly once and what at least once.
 * @example
 * ```ts
 * const onOpened: ReactionHandler<{ Opened: { title: string } }, "Opened"> = async (event, _stream, _app, { signal }) => {
 *   await fetch("https://mail.example/send", { method: "POST", body: event.data.title, signal });
 * };
 * ```
 */
export type ReactionContext = {
  /** Aborts when the lease may no longer be this handler's (refused or failed renewal, deadline passed). */
  readonly signal: AbortSignal;
  /** The lease's generation: a later lease of the stream, a reset or an unblock carries a higher one. */
  readonly token: number;
  /** The attempt at this event and reaction: 1 the first time, more on retries. */
  readonly attempt: number;
};

/**
 * Runs after an event of name `K` is committed, when the app drains. It gets
 * the event, the stream the reaction is leased on, the app to act with, and
 * its lease ({@link ReactionContext}: an abort signal, the lease's token and
 * the attempt). A throw (or not finishing within the lease) is retried, then
 * blocks the stream after `maxRetries` when `blockOnError` is set.
 *
 * @stable
 * @param event - the committed event, with its data, stream, version and metadata
 * @param stream - the reaction stream the handler runs on (the resolver's `target`)
 * @param app - the app's {@link Dispatcher}, to ask for actions; it refuses them once `context.signal` aborted
 * @param context - the lease the handler runs under: `signal`, `token`, `attempt`
 * @see [Event sourcing](/docs/concepts/event-sourcing#reactions) — explains reactions.
 * @example
 * ```ts
 * const onOpened: ReactionHandler<{ Opened: { title: string } }, "Opened", { assign: { agent: string } }> =
 *   async (event, _stream, app) => {
 *     await app.do("assign", { stream: event.stream, actor: bot }, { agent: "ada" }, { reactingTo: event });
 *   };
 * ```
 */
export type ReactionHandler<E extends Schemas, K extends keyof E, A extends Schemas = Schemas> = (
  event: ReactionPayload<E, K>,
  stream: string,
  app: Dispatcher<A>,
  context: ReactionContext
) => Promise<unknown>;

/**
 * Picks the stream a reaction runs on for a given event: `target` is the
 * stream whose lease serialises the handling, `source` (optional) the only
 * stream whose events it reads. Returning `undefined` means "nowhere".
 *
 * @stable
 * @param event - the committed event the reaction is registered on
 * @see [Event sourcing](/docs/concepts/event-sourcing#reactions) — explains where a reaction runs.
 * @example
 * ```ts
 * const toAudit: ReactionResolver<{ Opened: { title: string } }, "Opened"> =
 *   (event) => ({ target: `audit-${event.stream}`, source: event.stream });
 * ```
 */
export type ReactionResolver<E extends Schemas, K extends keyof E> = (event: Committed<E, K>) =>
  | {
      /** The stream the reaction runs on: its lease serialises the handling. */
      target: string;
      /** The only stream whose events it reads (every stream when absent). */
      source?: string;
    }
  | undefined;

/**
 * Options of a reaction.
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#retries-and-blocked-streams) — explains retries and blocked streams.
 * @example
 * ```ts
 * const options: ReactionOptions = { blockOnError: true, maxRetries: 5 };
 * ```
 */
export type ReactionOptions = {
  /** Block the stream when an event still fails after `maxRetries` retries (default true); otherwise skip the reaction for that event. */
  readonly blockOnError: boolean;
  /** Retries of a failing event before blocking or skipping (default 3: the handler runs at most 4 times per event). */
  readonly maxRetries: number;
  /** Delay before the first retry, in ms (default 1,000); it doubles with each retry, with jitter. */
  readonly retryBaseMillis?: number;
  /** Longest delay between retries, in ms (default 60,000). */
  readonly retryMaxMillis?: number;
  /**
   * Run only for events committed at or after this time. Without it, a
   * reaction added in a new release runs for every event already in the log
   * that it resolves to a stream — on a stream that already exists too: the
   * stream goes back to the reaction's first event there, and its other
   * reactions skip what they handled. Set it to the release date to start a
   * reaction such as "send a welcome mail" with the next event.
   */
  readonly since?: Date;
};

/**
 * A registered reaction: handler, resolver and options.
 *
 * @stable
 * @example
 * ```ts
 * const r: Reaction<{ Opened: {} }, "Opened"> = {
 *   handler: async () => {},
 *   resolver: (e) => ({ target: e.stream, source: e.stream }),
 *   options: { blockOnError: true, maxRetries: 3 },
 * };
 * ```
 */
export type Reaction<E extends Schemas, K extends keyof E, A extends Schemas = Schemas> = {
  /** What to do. */
  readonly handler: ReactionHandler<E, K, A>;
  /** Where to do it. */
  readonly resolver: ReactionResolver<E, K>;
  /** How to treat failures. */
  readonly options: ReactionOptions;
  /** The projection this reaction feeds, when it is one: the drain then applies its events in one store transaction. */
  readonly projection?: Projection<any, any>;
  /**
   * Other names the reaction answers to in the store, besides its key: the
   * names it had before (`renamedFrom`) and the position-numbered names of
   * releases before stable names (`"invoice#1"`). Streams that recorded one
   * of them are this reaction's, and progress recorded under one counts.
   */
  readonly aliases?: readonly string[];
};

/**
 * The reactions registered on one event, by reaction key (its `name` option,
 * else the handler's name, e.g. `assign`).
 *
 * @stable
 * @example
 * ```ts
 * const reactions: ReactionsRegister<{ Opened: { title: string } }, "Opened"> = new Map();
 * reactions.set("notify", {
 *   handler: async (event) => console.log(event.data.title),
 *   resolver: (event) => ({ target: event.stream, source: event.stream }),
 *   options: { blockOnError: true, maxRetries: 3 },
 * });
 * ```
 */
export type ReactionsRegister<E extends Schemas, K extends keyof E, A extends Schemas = Schemas> = Map<
  string,
  Reaction<E, K, A>
>;

/**
 * Every event an app knows, with its schema and the reactions registered on it, by reaction name.
 *
 * @stable
 * @example
 * ```ts
 * const reactions = app.registry.events.Incremented.reactions; // Map<string, Reaction>
 * ```
 */
export type EventRegister<E extends Schemas, A extends Schemas = Schemas> = {
  [K in keyof E]: {
    /** The event's data schema. */
    readonly schema: z.ZodType<E[K]>;
    /** Older shapes of its data and how they become the current one (see `State.upcasts`). */
    readonly upcasts?: ReadonlyArray<Upcaster<E[K]>>;
    /** The reactions registered on the event. */
    readonly reactions: ReactionsRegister<E, K, A>;
    /** Its personal fields and their subject, if any (see `StateBuilder.personal`). */
    readonly personal?: PersonalFields<E[K]>;
  };
};

/**
 * Every action an app knows, with the payload schema it validates against:
 * each schema takes the payload as `app.do` does (`A`) and outputs what the
 * action's handler receives.
 *
 * @stable
 * @typeParam A - the actions' payloads, as `app.do` takes them
 * @example
 * ```ts
 * const schema = app.registry.schemas.increment; // zod schema of the payload
 * ```
 */
export type SchemaRegister<A extends Schemas> = { [K in keyof A]: z.ZodType<Schema, A[K]> };

/**
 * What an app is made of: the state that handles each action, each action's
 * payload schema, and each event with its reactions.
 *
 * @stable
 * @example
 * ```ts
 * const Counter = app.registry.actions.increment; // the State handling "increment"
 * ```
 */
export type Registry<S extends Schemas, E extends Schemas, A extends Schemas> = {
  /** The state handling each action. */
  readonly actions: { [K in keyof A]: State<S[K & keyof S], E, Schemas, Schemas, A> };
  /** The payload schema of each action. */
  readonly schemas: SchemaRegister<A>;
  /** Events and their reactions. */
  readonly events: EventRegister<E, A>;
  /** The inline projections, run inside each commit of events they handle. */
  readonly inline?: readonly Projection<any, any>[];
  /** The local projections, whose positions each process keeps for itself (see `ProjectionOptions.local`). */
  readonly local?: readonly Projection<any, any>[];
};

/**
 * Events fetched by one drain, per leased stream.
 *
 * @stable
 * @example
 * ```ts
 * const { fetched } = await app.drain();
 * fetched.forEach(({ stream, events }) => console.log(stream, events.length));
 * ```
 */
export type Fetch<E extends Schemas> = Array<{
  /** The reaction stream. */
  readonly stream: string;
  /** Its source stream, if any. */
  readonly source?: string;
  /** Whether it was polled as lagging. */
  readonly lagging: boolean;
  /** Events read after its watermark. */
  readonly events: CommittedOf<E>[];
}>;

/**
 * What one `drain` did: the events it fetched, the leases it got, and the
 * leases it acknowledged or blocked.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#draining) — explains draining.
 * @example
 * ```ts
 * const { acked, blocked } = await app.drain();
 * if (blocked.length) console.error(blocked.map((b) => b.error));
 * ```
 */
export type Drain<E extends Schemas> = {
  /** Events read, per stream. */
  readonly fetched: Fetch<E>;
  /** Leases obtained. */
  readonly leased: Lease[];
  /** Leases acknowledged (watermark moved). */
  readonly acked: Lease[];
  /** Streams blocked after too many failures, with the error. */
  readonly blocked: BlockedLease[];
  /** Timers fired after the reactions, earliest due first; absent when none. */ readonly fired?: readonly import("./timers.js").FiredTimer[];
};

/**
 * How much one `drain` does.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#draining) — explains draining.
 * @example
 * ```ts
 * await app.drain({ streamLimit: 20, eventLimit: 50, leaseMillis: 5_000 });
 * ```
 */
export type DrainOptions = {
  /** Streams handled per drain (default 10), split between the most lagging and the most leading. */
  readonly streamLimit?: number;
  /** Events fetched per stream (default 10). */
  readonly eventLimit?: number;
  /**
   * How long a lease is exclusive, in ms (default 10,000). The lease is
   * renewed while the stream's handlers run, so another drainer never takes
   * a stream a handler is still working on; `drain` waits for a stream at
   * most this long and lets slower handlers finish in the background.
   */
  readonly leaseMillis?: number;
  /**
   * How long a stream with a backlog goes on past `eventLimit` events, in ms
   * (default 100; 0 stops every stream at `eventLimit`). A stream with more
   * events waiting — a new reaction's backfill, a consumer that was down —
   * reads up to 1,000 of them and keeps running its handlers, one event at a
   * time, until this long after the drain started handling, then records
   * how far it got. Fast handlers catch up in few drains; slow ones stop at
   * `eventLimit` as before, so a backlog never holds back the next drain —
   * and the new work it finds — by more than this (plus one handler).
   * A projection's batch is one transaction, which cannot stop half-way:
   * its size starts at `eventLimit` and doubles after each full batch that
   * took less than half of this (up to 1,000 events), halves after one that
   * took longer (never below `eventLimit`); with 0 it is always `eventLimit`.
   */
  readonly backlogMillis?: number;
};

/**
 * How a running consumer ({@link Act.start}) drains: the {@link DrainOptions}
 * of each drain, plus how often it polls when idle and how long `stop` waits
 * for handlers still running.
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#processes) — explains running consumers.
 * @example
 * ```ts
 * app.start({ pollMillis: 500, graceMillis: 10_000, leaseMillis: 30_000 });
 * ```
 */
export type ConsumerOptions = DrainOptions & {
  /** Longest wait between drains when there is nothing to do, in ms (default 1,000); the wait starts short and doubles while idle. */
  readonly pollMillis?: number;
  /** How long `stop` waits for handlers still running, in ms (default 5,000). */
  readonly graceMillis?: number;
};

/**
 * The options of `app.startCorrelations(options)`: which events each run
 * scans, how often it runs, and a callback with what each run registered.
 *
 * @experimental
 * @example
 * ```ts
 * const options: CorrelationOptions = {
 *   intervalMillis: 1_000,
 *   onCorrelated: (leased) => console.log(leased.length),
 * };
 * ```
 */
export type CorrelationOptions = {
  /** Which events each run scans (default: the next page of each reaction's discovery). */
  readonly query?: Query;
  /** How often to run, in ms (default 10,000). */
  readonly intervalMillis?: number;
  /**
   * Called with the reaction streams each run registered, when it registered any.
   *
   * @param leased - the reaction streams registered (new or already known)
   */
  readonly onCorrelated?: (leased: Lease[]) => void;
};
