import type { Message, Schema, Schemas, Snapshot } from "../types/action.js";
import type { Target } from "./schemas.js";

/**
 * The code of each error Act throws, by error name. Every Act error carries
 * its code in `name`, so callers can branch without `instanceof`.
 *
 * @stable
 * @example
 * ```ts
 * try { await app.do("increment", target, { by: 1 }); }
 * catch (error) {
 *   if (error instanceof Error && error.name === Errors.InvariantError) console.warn(error.message);
 *   else throw error;
 * }
 * ```
 */
export const Errors = {
  /** A payload, target, query or setting did not match its schema. */
  ValidationError: "ERR_VALIDATION",
  /** An action's business rule did not hold. */
  InvariantError: "ERR_INVARIANT",
  /** The stream moved since it was loaded. */
  ConcurrencyError: "ERR_CONCURRENCY",
  /** The store could not do what was asked (database unreachable, connection lost, pool exhausted…). */
  StoreError: "ERR_STORE",
  /** A `state()` or `act()` builder was used in a way that cannot build a working app. */
  BuilderError: "ERR_BUILDER",
  /** `app.settled` gave up: a reaction stream of the chain is blocked, or its time ran out. */
  NotSettledError: "ERR_NOT_SETTLED",
  /** An idempotency key the stream already used came with another request (action, actor or payload). */
  IdempotencyKeyReusedError: "ERR_IDEMPOTENCY_KEY_REUSED",
  /** Personal data could not be written or read: no key store, no subject, a forgotten subject, a missing key, a tampered value. */
  PersonalDataError: "ERR_PERSONAL_DATA",
  /** An action, or a second close, on a stream that was closed (`app.close`). */
  StreamClosedError: "ERR_STREAM_CLOSED",
  /** A read of a stream's history that moved to the archive, or was deleted by retention. */
  StreamArchivedError: "ERR_STREAM_ARCHIVED",
} as const;

/**
 * Keeps a value on an error for the caller without making it enumerable, so
 * serialisers that copy an error's own properties into a log line (pino's,
 * `JSON.stringify`) leave it out: payloads and states may hold personal data.
 */
function hidden(error: Error, key: string, value: unknown): void {
  Object.defineProperty(error, key, { value, enumerable: false, writable: false, configurable: true });
}

/** One readable problem found by validation: where (`path`) and what (`message`). */
type Issue = { path: string; message: string };

/**
 * Thrown when a payload does not match its zod schema: an action payload, an
 * event's data, a target, a query or the configuration.
 *
 * `details` lists each problem with the path of the bad field, and the message
 * says which action, event or variable was being validated. The rejected
 * `payload` is on the error for the caller but not enumerable, so a log line
 * made from the error holds the names and field paths, not the data (the
 * default logger adds it at `debug` level).
 *
 * @stable
 * @see [State management](/docs/concepts/state-management#what-can-go-wrong) — lists what can fail.
 * @example
 * ```ts
 * const untrusted = JSON.parse('{ "by": "one" }');
 * try { await app.do("increment", target, untrusted); }
 * catch (error) {
 *   if (error instanceof ValidationError) console.log(error.details); // [{ path: "by", message: "..." }]
 * }
 * ```
 */
export class ValidationError extends Error {
  /** The rejected value — kept for the caller, left out of logs (see the class notes). */
  declare readonly payload: unknown;

  /**
   * @param target - what was validated, e.g. `action "increment"`
   * @param payload - the rejected value (not enumerable: logs leave it out)
   * @param details - one entry per problem, with the path of the bad field
   */
  constructor(
    public readonly target: string,
    payload: unknown,
    public readonly details: Issue[]
  ) {
    super(`Invalid ${target}: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ")}`);
    this.name = Errors.ValidationError;
    hidden(this, "payload", payload);
  }
}

/**
 * Thrown when an action's invariant does not hold for the current state. It
 * carries the action, the payload, the target, the snapshot it was checked
 * against and the failed rule's `description`. Nothing is committed. The
 * payload, target and snapshot are not enumerable: a log line made from the
 * error names the action, the stream and the rule, not the data.
 *
 * @stable
 * @see [State management](/docs/concepts/state-management#invariants) — explains invariants.
 * @example
 * ```ts
 * try { await app.do("close", target, {}); }
 * catch (error) {
 *   if (error instanceof InvariantError) console.log(error.description); // "Ticket must be open"
 * }
 * ```
 */
export class InvariantError extends Error {
  /** The validated payload — kept for the caller, left out of logs. */
  declare readonly payload: Schema;
  /** The target of the action (stream and actor) — kept for the caller, left out of logs. */
  declare readonly target: Target;
  /** The state the rule was checked against — kept for the caller, left out of logs. */
  declare readonly snapshot: Snapshot<Schema, Schemas>;

  /**
   * @param action - the action name
   * @param payload - the validated payload
   * @param target - the target of the action
   * @param snapshot - the state the rule was checked against
   * @param description - the failed rule's description
   */
  constructor(
    public readonly action: string,
    payload: Schema,
    target: Target,
    snapshot: Snapshot<Schema, Schemas>,
    public readonly description: string
  ) {
    super(`Action "${action}" on stream "${target.stream}" failed invariant: ${description}`);
    this.name = Errors.InvariantError;
    hidden(this, "payload", payload);
    hidden(this, "target", target);
    hidden(this, "snapshot", snapshot);
  }
}

/**
 * Thrown by a commit when the stream is not at the expected version — someone
 * else committed to it since it was loaded. Nothing is committed; load again
 * and retry if the action still makes sense.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#optimistic-concurrency) — explains version conflicts.
 * @example
 * ```ts
 * try { await app.do("increment", { ...target, expectedVersion: 3 }, { by: 1 }); }
 * catch (error) {
 *   if (error instanceof ConcurrencyError) console.log(error.lastVersion); // e.g. 5
 * }
 * ```
 */
export class ConcurrencyError extends Error {
  /** The messages that were not committed — kept for the caller, left out of logs. */
  declare readonly events: Message<Schemas, string>[];

  /**
   * @param stream - the stream of the commit
   * @param lastVersion - the stream's actual last version (-1 when empty)
   * @param events - the messages that were not committed
   * @param expectedVersion - the version the caller expected
   */
  constructor(
    public readonly stream: string,
    public readonly lastVersion: number,
    events: Message<Schemas, string>[],
    public readonly expectedVersion: number
  ) {
    const names = events.map((e) => e.name).join(", ");
    super(
      `Concurrency conflict on stream "${stream}": expected version ${expectedVersion} but the stream is at ${lastVersion}` +
        (names ? ` (events not committed: ${names})` : " (nothing was committed)")
    );
    this.name = Errors.ConcurrencyError;
    hidden(this, "events", events);
  }
}

/**
 * Thrown when an action comes with an idempotency key its stream already
 * used for a different request — another action, another actor or another
 * payload. The first request's outcome is not returned (it may be someone
 * else's) and nothing runs or is committed. A retry of the *same* request
 * with its key gets the first outcome instead; this error means the caller
 * reused a key for something new, which an HTTP layer usually answers with
 * 422 (or 409).
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#exactly-once-per-reaction) — explains idempotency keys.
 * @example
 * ```ts
 * try { await app.do("increment", { ...target, idempotencyKey: "req-1" }, { by: 2 }); }
 * catch (error) {
 *   if (error instanceof IdempotencyKeyReusedError) console.warn(error.message); // "req-1" was used for another request
 * }
 * ```
 */
export class IdempotencyKeyReusedError extends Error {
  /**
   * @param stream - the stream the action was addressed to
   * @param key - the idempotency key
   * @param action - the action that came with the key this time
   */
  constructor(
    public readonly stream: string,
    public readonly key: string,
    public readonly action: string
  ) {
    super(
      `Idempotency key "${key}" of stream "${stream}" was already used for another request: action "${action}" with this actor and payload is not what was committed under it. Use a new key for a new request; nothing was committed`
    );
    this.name = Errors.IdempotencyKeyReusedError;
  }
}

/**
 * Why a store call failed, for a caller deciding what to do next:
 *
 * - `"unreachable"` — no connection could be made (server down, starting or
 *   shutting down, wrong host). Nothing was done. Retry later.
 * - `"connection-lost"` — the connection broke during the call. A commit was
 *   applied entirely or not at all: reload (or retry with the same
 *   `expectedVersion`) to find out.
 * - `"busy"` — every pooled connection stayed in use until the wait for one
 *   timed out. Nothing was done. Retry later, or give the pool more connections.
 * - `"transient"` — the database refused the call for a passing reason: too
 *   many connections or another lack of resources, a lock or statement
 *   timeout, a serialization failure or a deadlock. The transaction was
 *   rolled back, nothing was done. Retry (after a short wait).
 * - `"disposed"` — the store (or the port holding it) was disposed. Do not retry.
 * - `"rejected"` — the store refused the call (bad data, a constraint,
 *   missing tables, permissions). Retrying the same call fails the same way.
 *
 * @stable
 * @example
 * ```ts
 * const reason: StoreFailure = "busy";
 * ```
 */
export type StoreFailure = "unreachable" | "connection-lost" | "busy" | "transient" | "disposed" | "rejected";

/**
 * Thrown when a store cannot carry out a call for a reason other than a
 * version conflict. `operation` names the call (e.g. `commit to "order-1"`),
 * `reason` says why (see {@link StoreFailure}) and `retryable` tells a caller
 * whether the same call may succeed later. The driver's error is the `cause`.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#what-can-go-wrong) — lists what can fail.
 * @example
 * ```ts
 * try { await app.do("increment", target, { by: 1 }); }
 * catch (error) {
 *   if (!(error instanceof StoreError && error.retryable)) throw error;
 *   console.warn(`${error.operation}: ${error.reason}; trying again in a second`);
 * }
 * ```
 */
export class StoreError extends Error {
  /** True when the same call may succeed later (`unreachable`, `connection-lost`, `busy`, `transient`). */
  public readonly retryable: boolean;

  /**
   * @param operation - the call that failed, e.g. `commit to "order-1"`
   * @param reason - why it failed
   * @param message - what happened, in words
   * @param cause - the underlying driver error
   */
  constructor(
    public readonly operation: string,
    public readonly reason: StoreFailure,
    message: string,
    cause?: unknown
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = Errors.StoreError;
    this.retryable =
      reason === "unreachable" || reason === "connection-lost" || reason === "busy" || reason === "transient";
  }
}

/**
 * Thrown while an app is being defined, when a `state()` or `act()` builder
 * is used in a way that cannot build a working app: a duplicate action, two
 * states with one name, an event owned by two states, a reaction to an event
 * no registered state emits, a builder passed where a built state belongs,
 * or an app without states. `builder` and `step` say which call it was; the
 * message says what to change.
 *
 * @stable
 * @see [State management](/docs/concepts/state-management) — how states and apps are built.
 * @example
 * ```ts
 * try { act().build(); }
 * catch (error) {
 *   if (error instanceof BuilderError) console.log(error.builder, error.step); // "act" "build"
 * }
 * ```
 */
export class BuilderError extends Error {
  /**
   * @param builder - which builder was misused: `"state"` or `"act"`
   * @param step - the builder call that refused, e.g. `"with"` or `"on"`
   * @param message - what was wrong and what to do instead
   */
  constructor(
    public readonly builder: "state" | "act",
    public readonly step: string,
    message: string
  ) {
    super(message);
    this.name = Errors.BuilderError;
  }
}

/**
 * A reaction stream that had not handled every event of a chain when
 * `app.settled` gave up, and how far behind it was.
 *
 * @stable
 * @example
 * ```ts
 * const behind: PendingStream = { stream: "audit", at: 41, until: 44, behind: 2, retry: 0, blocked: false };
 * ```
 */
export type PendingStream = {
  /** The reaction stream. */
  readonly stream: string;
  /** Id of the last event it handled (-1 when none, or when no drain has registered the stream yet). */
  readonly at: number;
  /** Id of the chain's last event that reacts into it: it has caught up with the chain once `at` reaches this. */
  readonly until: number;
  /** How many of the chain's events that react into it lie after `at`. */
  readonly behind: number;
  /** Failed attempts at its next event (it waits out a backoff between them). */
  readonly retry: number;
  /** Whether it is blocked: it moves again only once unblocked (`app.unblock`). */
  readonly blocked: boolean;
  /** Why it was blocked. */
  readonly error?: string;
};

/**
 * Why `app.settled` gave up:
 *
 * - `"blocked"` — a reaction stream the chain reacts into is blocked before
 *   the chain's events: they will not be handled until it is unblocked;
 * - `"pending"` — the time ran out while streams were still behind: no
 *   consumer is running, or the reactions are slow, or wait out retries.
 *
 * @stable
 * @example
 * ```ts
 * const reason: NotSettledReason = "pending";
 * ```
 */
export type NotSettledReason = "blocked" | "pending";

/**
 * Thrown by `app.settled` when the reactions of a causal chain did not all
 * run: a stream they run on is blocked (`reason` `"blocked"`, thrown at once,
 * since waiting cannot help), or the time ran out first (`"pending"`). The
 * events the chain committed so far stay committed; the rest is still to
 * come, or waits for an operator. `pending` lists every stream still behind
 * (the blocked ones with their error), and the message names each with its
 * watermark and how many of the chain's events it has left.
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#waiting-for-a-chain) — when to wait for reactions, and how.
 * @example
 * ```ts
 * const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
 * try { await app.settled(snapshots, { timeoutMillis: 2_000 }); }
 * catch (error) {
 *   if (!(error instanceof NotSettledError)) throw error;
 *   for (const { stream, behind } of error.pending) console.warn(`${stream}: ${behind} to go`);
 * }
 * ```
 */
export class NotSettledError extends Error {
  /**
   * @param reason - why the wait stopped
   * @param correlations - the correlation ids of the chain waited for
   * @param pending - the reaction streams still behind, by name
   * @param message - what happened, naming each stream
   */
  constructor(
    public readonly reason: NotSettledReason,
    public readonly correlations: readonly string[],
    public readonly pending: readonly PendingStream[],
    message: string
  ) {
    super(message);
    this.name = Errors.NotSettledError;
  }
}

/**
 * Why personal data could not be written, read or forgotten (see
 * {@link PersonalDataError}).
 *
 * - `no-key-store`: the store keeps no subject keys (`Store.keys`).
 * - `no-subject`: the event's subject field is missing or not a non-empty string.
 * - `forgotten-subject`: a write of personal data of a subject that was forgotten.
 * - `unknown-subject`: `forget` or `rotate` of a subject the store has no key for.
 * - `missing-key`: a stored value names a key version the store never had (e.g. events copied without their keys).
 * - `tampered`: a stored value failed authentication: changed, or encrypted with another key.
 * - `malformed`: a stored value marked as encrypted cannot be parsed.
 *
 * @experimental
 * @example
 * ```ts
 * const reason: PersonalDataFailure = "tampered";
 * ```
 */
export type PersonalDataFailure =
  | "no-key-store"
  | "no-subject"
  | "forgotten-subject"
  | "unknown-subject"
  | "missing-key"
  | "tampered"
  | "malformed";

/**
 * Thrown when personal data cannot be written, read or forgotten. `reason`
 * says why ({@link PersonalDataFailure}), `where` names the event, stream
 * and field (or the subject) — never the data itself. A forgotten subject's
 * fields are not an error when read: they read as {@link FORGOTTEN}.
 *
 * @experimental
 * @see [Personal data](/docs/guides/personal-data) — what is encrypted, forgetting, key rotation.
 * @example
 * ```ts
 * try { await app.forget("customer-404"); }
 * catch (error) {
 *   if (error instanceof PersonalDataError && error.reason === "unknown-subject") console.warn(error.message);
 * }
 * ```
 */
export class PersonalDataError extends Error {
  /**
   * @param reason - why it failed
   * @param where - the event, stream and field, or the subject
   * @param message - what happened, in words
   * @param cause - the underlying error (e.g. WebCrypto's `OperationError`)
   */
  constructor(
    public readonly reason: PersonalDataFailure,
    public readonly where: string,
    message: string,
    cause?: unknown
  ) {
    super(`${where}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = Errors.PersonalDataError;
  }
}
