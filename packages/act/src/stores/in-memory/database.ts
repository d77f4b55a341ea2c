/**
 * The in-memory store's data: the log, each stream's events and latest
 * snapshots, the reaction streams' watermarks and leases, idempotency keys
 * discovery positions and timers. The operation modules read and change it; only
 * `drop` replaces it.
 */
import type { Committed, Schemas } from "../../types/action.js";

/** An event of the log. */
export type Event = Committed<Schemas, string>;

/** A stream's events (by global id) and where each state's latest snapshot is (index in `ids`). */
export type StreamLog = { ids: number[]; snaps: Map<string, number> };

/** A reaction stream's watermark and lease. */
export type Watermark = {
  stream: string;
  source?: string;
  at: number;
  retry: number;
  /** Reactions already run on the partly handled event after `at`. */
  done: string[];
  /** The last event correlation found reacting into this stream: there is work while it is past `at`. */
  head: number;
  /** The reactions that target this stream: only apps that have them all lease it. */
  reactions: Set<string>;
  /** Reactions that handled the stream past `at` (it moved back for one that joined late): the last event each handled. */
  ahead: Record<string, number>;
  /** The lease's generation: a new lease, `reset` and `unblock` move it on. */
  token: number;
  blocked: boolean;
  error?: string;
  by?: string;
  /** End of the lease, or of the backoff before a retry (0: none). */
  until: number;
};

/** What an idempotency key remembers: the versions committed under it, and when it expires. */
export type KeyedCommit = { from: number; to: number; expires: number; request?: string };

/** A timer as the store keeps it (see `TimerStore`): times in epoch ms. */
export type TimerRow = {
  id: string;
  action: string;
  stream: string;
  actor: { id: string; name: string };
  payload: unknown;
  due: number;
  status: "pending" | "fired" | "failed" | "cancelled";
  token: number;
  attempts: number;
  by?: string;
  /** End of the claim, or of the wait before the next attempt (0: none). */
  until: number;
  fired?: number;
  error?: string;
  /** The correlation id its action's events get. */
  correlation?: string;
};

/** A data subject's keys: each version's raw key in base64 (`null` once destroyed), and the streams holding its data. */
export type SubjectKeys = { versions: Array<string | null>; streams: Set<string> };

/** Everything an in-memory store holds. */
export class Database {
  /** The log: the event with id `first + i` at index `i`. */
  events: Event[] = [];
  /**
   * Id of the first event in the log. Ids are never reused, not even after
   * `drop()` (as in PostgreSQL), so an app that remembers how far it has read
   * the log never mistakes new events for ones it has already seen.
   */
  first = 0;
  streams = new Map<string, StreamLog>();
  watermarks = new Map<string, Watermark>();
  /**
   * The watermarks with work (`head` past `at`, not blocked), kept in step
   * by every change to those fields: `poll` looks only at these, so the
   * reaction streams that have caught up cost a drain nothing, as the
   * partial index of the database stores does.
   */
  pending = new Set<Watermark>();
  /** Idempotency keys by stream and key: the versions committed under each, and when the key expires. */
  keys = new Map<string, KeyedCommit>();
  /** How far correlation has gone, by reaction name (see `discover`). */
  discoveries = new Map<string, number>();
  /** Timers by id, in every status. */
  timers = new Map<string, TimerRow>();
  /** Keys of data subjects, by subject (see `SubjectKeyStore`). */
  subjects = new Map<string, SubjectKeys>();

  /** Forgets every event, watermark, idempotency key and discovery position; ids go on from where they were. */
  drop(): void {
    this.first += this.events.length;
    this.events = [];
    this.streams = new Map();
    this.watermarks = new Map();
    this.pending = new Set();
    this.keys = new Map();
    this.discoveries = new Map();
    this.timers = new Map();
    this.subjects = new Map();
  }
}
