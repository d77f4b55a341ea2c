import type { IncomingMessage } from "node:http";
import type { Act, Committed, Schemas, Store } from "@act-root/act";
import type { Catalog } from "../catalog.js";
import type { LogSearch } from "../search.js";
import type { Sessions } from "../sessions.js";
import type { WireEvent } from "../wire-event.js";

/** One endpoint: what it answers (as JSON, with 200), or an `HttpError` it throws. */
export type Route = (url: URL, req: IncomingMessage) => Promise<unknown>;

/** Endpoints by `"<METHOD> <path>"`. */
export type Routes = Partial<Record<string, Route>>;

/** What the endpoints of one server share. */
export type Served = {
  /** The store read (and, with `operations`, written to by unblock and reset). */
  readonly store: Store;
  /** Lists streams. */
  readonly catalog: Catalog;
  /** App mode: the app whose states and stats the endpoints may use. */
  readonly app?: Act<any, any, any>;
  /** The tenant whose store this is, if it is one tenant's. */
  readonly tenant?: string;
  /** Whether unblock and reset are allowed. */
  readonly operations: boolean;
  /** An event as the page receives it, long payloads cut. */
  readonly cut: (e: Committed<Schemas, string>) => WireEvent;
  /** Events by id, correlation and cause. */
  readonly search: LogSearch;
  /** The sign-in. */
  readonly sessions: Sessions;
};
