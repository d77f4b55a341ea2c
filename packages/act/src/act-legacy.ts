/**
 * The app's calls of earlier releases, kept for one minor release: the old
 * call shapes of `do`, `load` and `projected` (their options are read by
 * `legacy-calls.ts`) and the snake_case names of `queryArray`,
 * `startCorrelations` and `stopCorrelations`. Each warns once per process
 * (see `deprecated`). They live here, declared on `Act` by declaration
 * merging, so the class reads as the current API and this file goes with
 * them. The package exports `Act` from here, so whoever imports the class
 * has these too (an import for its side effects alone would be dropped by
 * bundlers: the package declares no side effects).
 */
import { Act } from "./act.js";
import { deprecated } from "./core/deprecated.js";
import type { Query } from "./core/schemas.js";
import type { Projection } from "./builders/projection.js";
import type { CommittedOf, Schema, Schemas, Snapshot, State } from "./types/action.js";
import type { PointInTime } from "./types/app.js";
import type { Lease } from "./types/reaction.js";
import type { Target } from "./core/schemas.js";

declare module "./act.js" {
  interface Act<S extends Schemas, E extends Schemas, A extends Schemas> {
    /**
     * The call shape of earlier releases, positional `reactingTo` and `skipValidation`. Warns once per process.
     * @deprecated Pass them in the options: `app.do(name, target, payload, { reactingTo, skipValidation })`.
     * @param name - the action name
     * @param target - the stream and the actor
     * @param payload - the action payload
     * @param reactingTo - the event a reaction is handling
     * @param skipValidation - skip zod validation (trusted input only)
     * @returns what the options form returns
     */
    do<K extends keyof A & string>(
      name: K,
      target: Target,
      payload: Readonly<A[K]>,
      reactingTo: CommittedOf<Schemas> | undefined,
      skipValidation?: boolean
    ): Promise<Snapshot<S[K & keyof S], E>[]>;
    /**
     * The call shape of earlier releases, positional callback and point in time. Warns once per process.
     * @deprecated Pass them in the options: `app.load(State, stream, { at, onSnapshot })`.
     * @param state - the state to fold with
     * @param stream - the stream name
     * @param callback - called with the snapshot after each event
     * @param at - a point in the stream's history
     * @returns what the options form returns
     */
    load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
      state: State<SX, EX, AX, any, any>,
      stream: string,
      callback: ((snapshot: Snapshot<SX, EX>) => void) | undefined,
      at?: PointInTime
    ): Promise<Snapshot<SX, EX>>;
    /**
     * The call shape of earlier releases, a positional timeout. Warns once per process.
     * @deprecated Pass it in the options: `app.projected(projection, after, { timeoutMillis })`.
     * @param projection - a registered projection
     * @param after - the snapshots `do` returned, or an event id
     * @param timeoutMillis - how long to wait at most, in ms
     */
    projected(
      projection: Projection<any, any>,
      after: readonly Snapshot<any, any>[] | number,
      timeoutMillis: number
    ): Promise<void>;
    /**
     * The name of earlier releases for {@link Act.queryArray}. Warns once per process.
     * @deprecated Use `app.queryArray(query)`.
     * @param query - filters (see {@link Query})
     */
    query_array(query: Query): Promise<CommittedOf<E>[]>;
    /**
     * The call of earlier releases for {@link Act.startCorrelations}, positional. Warns once per process.
     * @deprecated Use `app.startCorrelations({ query, intervalMillis, onCorrelated })`.
     * @param query - passed to correlate
     * @param frequency - interval in ms (default 10,000)
     * @param callback - called with the streams registered by each run
     * @returns false when correlations were already running
     */
    start_correlations(query?: Query, frequency?: number, callback?: (leased: Lease[]) => void): boolean;
    /**
     * The name of earlier releases for {@link Act.stopCorrelations}. Warns once per process.
     * @deprecated Use `app.stopCorrelations()`.
     */
    stop_correlations(): void;
  }
}

Act.prototype.query_array = function (this: Act<Schemas, Schemas, Schemas>, query: Query) {
  deprecated("app.query_array", "use app.queryArray(query)");
  return this.queryArray(query);
};

Act.prototype.start_correlations = function (
  this: Act<Schemas, Schemas, Schemas>,
  query?: Query,
  frequency?: number,
  callback?: (leased: Lease[]) => void
) {
  deprecated(
    "app.start_correlations(query, frequency, callback)",
    "use app.startCorrelations({ query, intervalMillis, onCorrelated })"
  );
  return this.startCorrelations({ query, intervalMillis: frequency, onCorrelated: callback });
};

Act.prototype.stop_correlations = function (this: Act<Schemas, Schemas, Schemas>) {
  deprecated("app.stop_correlations", "use app.stopCorrelations()");
  this.stopCorrelations();
};

export { Act };
