import { z } from "zod";
import type { Schemas } from "../types/action.js";
import type { Commit } from "../types/ports.js";
import { ValidationError } from "./errors.js";
import { NameSchema, StreamSchema } from "./schemas.js";
import { validate } from "./utils.js";

/**
 * One validator for the options and names that reach the app and the stores.
 * Every store and the app call these, so a value one of them refuses is
 * refused by all, with the same error naming the option or the name.
 */

/** A whole number of at least `min` (and at most `max`): no NaN, no Infinity, no fractions. */
const whole = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number({ error: `must be a finite number (at least ${min})` })
    .int(`must be a whole number (at least ${min})`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

// Built once: every commit checks against them, and building a zod schema
// costs more than using it.
/** An expected version: -1 (empty stream) or more. */
const VersionSchema = whole(-1);
/** An event id: 0 or more. */
const IdSchema = whole(0);

/** The longest delay any option accepts: about 24.8 days, the largest `setTimeout` delay. */
const MAX_DELAY = 2 ** 31 - 1;

/** The options of one drain, which the consumer's and `settle`'s extend. */
const drain = z.object({
  /** Streams handled per drain: 1 to 10,000. */
  streamLimit: whole(1, 10_000).optional(),
  /** Events fetched per stream: 1 to 10,000. */
  eventLimit: whole(1, 10_000).optional(),
  /** Lease length in ms: 1 or more. */
  leaseMillis: whole(1).optional(),
  /** How long a stream with a backlog goes on past `eventLimit`, in ms: 0 (never) or more. */
  backlogMillis: whole(0, MAX_DELAY).optional(),
});

/**
 * Schemas of the options the app and the stores take, by what they configure.
 * Each option is a whole number with a lower bound: `NaN`, `Infinity`,
 * negative numbers and fractions are refused — they used to turn a loop
 * into a busy one, remove a backoff or switch a feature off without a word.
 *
 * - `store`: every store's own options (`idempotencyMillis`).
 * - `drain`: {@link "act/src"!DrainOptions} — `streamLimit`, `eventLimit`, `leaseMillis` (each at least 1), `backlogMillis` (0 or more).
 * - `consumer`: {@link "act/src"!ConsumerOptions} — the drain's, plus `pollMillis` and `graceMillis`.
 * - `reaction`: {@link "act/src"!ReactionOptions} — `blockOnError`, `maxRetries` (0 or more),
 *   `retryBaseMillis`, `retryMaxMillis` and `since` (a valid date).
 * - `projection`: {@link "act/src"!ProjectionOptions} — `maxRetries`, `retryBaseMillis`,
 *   `retryMaxMillis`, `version` (1 or more), `since`, `inline` and `local`.
 * - `rebuild`: {@link "act/src"!RebuildOptions} — `progressMillis` and `timeoutMillis`.
 * - `settle`: the testing kit's `settle` options — the drain's, plus
 *   `maxDrains`, `timeoutMillis` and `allowBlocked`.
 * - `settled`: {@link "act/src"!SettledOptions} — `timeoutMillis` (0 or more).
 * - `projected`: the options of `app.projected` — `timeoutMillis` (0 or more).
 * - `correlation`: the options of `app.startCorrelations` — `intervalMillis` (1 or more).
 * - `whole(min, max?)`: the rule they are made of, for a store's own options.
 *
 * @see [Errors](/docs/guides/errors) — lists what is refused and how.
 * @example
 * ```ts
 * OptionSchemas.drain.safeParse({ eventLimit: 0 }).success; // false
 * const ok = OptionSchemas.store.parse({ idempotencyMillis: 60_000 });
 * const mine = OptionSchemas.store.extend({ batchSize: OptionSchemas.whole(1, 500).optional() });
 * ```
 */
export const OptionSchemas = {
  /** The rule every option here is made of: a whole number from `min` to `max`. */
  whole,
  /** Every store's own options. */
  store: z.object({
    /** How long an idempotency key is remembered, in ms: 1 or more. */
    idempotencyMillis: whole(1).optional(),
  }),
  /** The options of `app.drain`. */
  drain,
  /** The options of `app.start`: a drain's, plus the consumer's own. */
  consumer: drain.extend({
    /** Longest idle wait between drains, in ms. */
    pollMillis: whole(1, MAX_DELAY).optional(),
    /** How long `stop` waits for handlers, in ms (0: not at all). */
    graceMillis: whole(0, MAX_DELAY).optional(),
  }),
  /** The options of a reaction (`.do(handler, options)`). */
  reaction: z.object({
    /** Block the stream after the last retry (true) or skip the event (false). */
    blockOnError: z.boolean({ error: "must be true or false" }).optional(),
    /** Retries before blocking or skipping (0: none). */
    maxRetries: whole(0, 1_000).optional(),
    /** Delay before the first retry, in ms. */
    retryBaseMillis: whole(0, MAX_DELAY).optional(),
    /** Longest delay between retries, in ms. */
    retryMaxMillis: whole(0, MAX_DELAY).optional(),
    /** Where a new reaction starts: a valid date. */
    since: z.date({ error: "must be a valid date" }).optional(),
  }),
  /** The options of a projection (`projection(name, options)`). */
  projection: z.object({
    /** Retries before blocking (0: none). */
    maxRetries: whole(0, 1_000).optional(),
    /** Delay before the first retry, in ms. */
    retryBaseMillis: whole(0, MAX_DELAY).optional(),
    /** Longest delay between retries, in ms. */
    retryMaxMillis: whole(0, MAX_DELAY).optional(),
    /** The read model's version: 1 or more. */
    version: whole(1).optional(),
    /** Where the projection starts: a valid date. */
    since: z.date({ error: "must be a valid date" }).optional(),
    /** Whether it runs inside the action's commit. */
    inline: z.boolean({ error: "must be true or false" }).optional(),
    /** Whether its position is kept in the process. */
    local: z.boolean({ error: "must be true or false" }).optional(),
  }),
  /** The options of `app.rebuild` (its callbacks are not checked here). */
  rebuild: z.object({
    /** How often progress is reported, in ms. */
    progressMillis: whole(1, MAX_DELAY).optional(),
    /** How long to wait at most, in ms. */
    timeoutMillis: whole(0).optional(),
  }),
  /** The options of the testing kit's `settle`: a drain's, plus its bounds. */
  settle: drain.extend({
    /** Drains that move something before giving up. */
    maxDrains: whole(1).optional(),
    /** Time before giving up, in ms. */
    timeoutMillis: whole(0, MAX_DELAY).optional(),
    /** Return with blocked streams listed instead of throwing. */
    allowBlocked: z.boolean({ error: "must be true or false" }).optional(),
  }),
  /** The options of `app.settled`. */
  settled: z.object({
    /** How long to wait at most, in ms (0: look once). */
    timeoutMillis: whole(0, MAX_DELAY).optional(),
  }),
  /** The options of `app.projected`. */
  projected: z.object({
    /** How long to wait at most, in ms (0: look once). */
    timeoutMillis: whole(0).optional(),
  }),
  /** The options of `app.startCorrelations` (its query and callback are checked where they are used). */
  correlation: z.object({
    /** How often correlation runs, in ms. */
    intervalMillis: whole(1, MAX_DELAY).optional(),
  }),
} as const;

/**
 * Checks the options `owner` was given against their schema (see
 * {@link OptionSchemas}) and returns them unchanged. Options the schema does
 * not know are left alone; an absent option keeps its default.
 *
 * @param owner - what takes the options, named in the error (e.g. `"drain"`, `"store"`)
 * @param options - the options as given (undefined: none)
 * @param schema - their schema
 * @returns `options` (an empty object when undefined)
 * @throws {@link "act/src"!ValidationError} whose message and `details` name each bad option, e.g.
 *   `Invalid drain options: eventLimit: must be at least 1`
 * @see [Errors](/docs/guides/errors) — lists what is refused and how.
 * @example
 * ```ts
 * checkOptions("drain", { eventLimit: 50 }, OptionSchemas.drain); // ok
 * checkOptions("drain", { eventLimit: Number.NaN }, OptionSchemas.drain); // throws, naming eventLimit
 * ```
 */
export function checkOptions<T extends object>(owner: string, options: T | undefined, schema: z.ZodType): T {
  if (options === undefined) return {} as T;
  if (typeof options !== "object" || options === null)
    throw new ValidationError(`${owner} options`, options, [{ path: "", message: "must be an object" }]);
  validate(`${owner} options`, options, schema);
  return options;
}

/**
 * Checks a name a store keeps or looks up — a stream (`"stream"`), an
 * idempotency key, an event name, a correlation id — with the rules of
 * {@link StreamSchema} and {@link NameSchema}: not empty, at most 256
 * characters, no NUL character, no lone UTF-16 surrogate.
 *
 * @param what - what the name is, named in the error (`"stream"` checks it as a stream name)
 * @param value - the name
 * @returns the name
 * @throws {@link "act/src"!ValidationError} naming `what` and the broken rule
 * @example
 * ```ts
 * checkName("stream", "order-1"); // ok
 * checkName("idempotency key", ""); // throws: Invalid idempotency key: name must not be empty
 * ```
 */
export function checkName(what: string, value: unknown): string {
  return validate(what, value, what === "stream" ? StreamSchema : NameSchema);
}

/**
 * Checks the inputs of `Store.commit` the way every store must before it
 * writes anything: the stream name, each event name, the correlation id, the
 * expected version (a whole number of at least -1), the idempotency key and
 * the id of the last event the caller knows.
 * Stores call it first, so they refuse the same commits with the same error.
 *
 * @param commit - what `Store.commit` was given (see {@link "act/src"!Commit})
 * @throws {@link "act/src"!ValidationError} naming the bad input
 * @example
 * ```ts
 * checkCommit({ stream: "order-1", messages: [{ name: "Placed", data: {} }], meta: { correlation: "c-1", causation: {} }, expectedVersion: -1 });
 * ```
 */
export function checkCommit<E extends Schemas>({
  stream,
  messages,
  meta,
  expectedVersion,
  idempotencyKey,
  lastId,
  request,
}: Commit<E>): void {
  checkName("stream", stream);
  for (const { name } of messages) checkName("event name", name);
  checkName("correlation", meta?.correlation);
  if (expectedVersion !== undefined) validate("expected version", expectedVersion, VersionSchema);
  if (idempotencyKey !== undefined) checkName("idempotency key", idempotencyKey);
  if (lastId !== undefined) validate("last event id", lastId, IdSchema);
  if (request !== undefined) checkName("idempotency request", request);
}

/**
 * Checks the inputs of `Store.discovered` and `Store.discover` the way every
 * store must: the reaction names (an array of non-empty strings without NUL
 * characters — reaction names have no length limit of their own, so none is
 * imposed) and, when given, the position (a whole number of at least -1).
 *
 * @param reactions - the reaction names
 * @param position - the position `discover` records; `discovered` passes none
 * @returns the names without repeats, sorted (stores that lock rows take them in one order)
 * @throws {@link "act/src"!ValidationError} naming the bad name (by its index) or position
 * @example
 * ```ts
 * checkDiscovery(["Placed/invoice#1"], 41); // ok
 * checkDiscovery([""], 41); // throws: Invalid reaction names: 0: must be a non-empty string without NUL characters
 * ```
 */
export function checkDiscovery(reactions: unknown, ...position: [at?: unknown]): string[] {
  if (!Array.isArray(reactions))
    throw new ValidationError("reaction names", reactions, [{ path: "", message: "must be an array of names" }]);
  const issues = reactions.flatMap((name, i) =>
    typeof name === "string" && name.length > 0 && !name.includes("\u0000")
      ? []
      : [{ path: String(i), message: "must be a non-empty string without NUL characters" }]
  );
  if (issues.length) throw new ValidationError("reaction names", reactions, issues);
  // Given (even as undefined) by `discover`, which must record a position.
  if (position.length) validate("discovered position", position[0], VersionSchema);
  return [...new Set(reactions as string[])].sort();
}
