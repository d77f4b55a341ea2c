/**
 * The counter and the ledger written Emmett's way (`evolve` and
 * `initialState`), shared by Emmett's subjects on every store.
 */
import type { Event } from "@event-driven-io/emmett";

export type Incremented = Event<"Incremented", { by: number }>;
export type Posted = Event<"Posted", { by: number }>;
export type Counter = { count: number };
export type Ledger = { total: number };

export const counter = {
  evolve: (state: Counter, event: Incremented): Counter => ({ count: state.count + event.data.by }),
  initialState: (): Counter => ({ count: 0 }),
};
export const ledger = {
  evolve: (state: Ledger, event: Posted): Ledger => ({ total: state.total + event.data.by }),
  initialState: (): Ledger => ({ total: 0 }),
};

export const NO_SNAPSHOTS = "Emmett's event stores keep no snapshots: every load folds the whole stream";
