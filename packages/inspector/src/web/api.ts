/** Calls to the inspector's server, each with the tab's session (see session.ts). */
import { credential } from "./session.js";

export type Info = {
  mode: "store" | "app";
  operations: boolean;
  store: string;
  correlationIndexed: boolean;
  states: string[];
};

export type StreamSummary = { stream: string; events: number; last: string };

export type Actor = { id: string; name: string };

export type WireEvent = {
  id: number;
  stream: string;
  version: number;
  created: string;
  name: string;
  data: unknown;
  meta: {
    correlation: string;
    causation: {
      action?: { name: string; stream: string; actor?: Actor };
      event?: { id: number; name: string; stream: string };
    };
  };
  truncated?: { data?: number; meta?: number };
};

export type Change = { path: string; kind: "added" | "removed" | "changed"; before?: unknown; after?: unknown };

export type ReactionRow = {
  stream: string;
  source?: string;
  at: number;
  head: number;
  retry: number;
  blocked: boolean;
  error?: string;
  leasedBy?: string;
  leasedUntil?: string;
  lag?: number;
};

/** What the reactions view filters by. */
export type ReactionState = "all" | "blocked" | "leased" | "lagging" | "running";

/** A page of reaction streams: blocked first, then by name, with the totals over every stream. */
export type ReactionPage = {
  operations: boolean;
  totals: { streams: number; blocked: number; leased: number; lagging: number };
  matched: number;
  streams: ReactionRow[];
  next?: string;
};

/** A timer as the server sends it: never its payload in a list. */
export type TimerRow = {
  id: string;
  action: string;
  stream: string;
  actor: Actor;
  due: string;
  correlation?: string;
  status: "pending" | "fired" | "failed" | "cancelled";
  attempts: number;
  claimedBy?: string;
  claimedUntil?: string;
  fired?: string;
  error?: string;
  /** Ms past due while pending, or from due to fired. */
  lateness?: number;
};

/** A page of pending timers, the earliest due first, with the store's counts. */
export type TimerPage = {
  totals: { pending: number; overdue: number };
  scanned: number;
  matched: number;
  timers: TimerRow[];
  next?: string;
};

/** One timer, with its payload, or why it is not shown. */
export type TimerDetail = { timer: TimerRow; payload?: unknown; truncated?: number; payloadHidden?: string };

/** A page of a search that may stop before the end of the log (no index, or out of time). */
export type SearchPage = { next?: number; searched?: number; last?: number; indexed: boolean };

export type Order = "oldest" | "newest";

/** A failed call, with the server's message for a person. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
  }
}

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    const headers = new Headers(init?.headers);
    const session = credential();
    if (session) headers.set("authorization", `Bearer ${session}`);
    res = await fetch(path, { ...init, headers, credentials: "omit" });
  } catch {
    throw new ApiError(0, "The inspector's server is not answering. Is it still running?");
  }
  const text = await res.text();
  let body: { error?: string } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = { error: text || res.statusText };
  }
  if (!res.ok) throw new ApiError(res.status, body?.error ?? `The server answered ${res.status}.`);
  return body as T;
}

const q = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  return search.toString();
};

export const api = {
  info: () => request<Info>("/api/info"),
  streams: (prefix: string, after?: string) =>
    request<{ streams: StreamSummary[]; next?: string }>(`/api/streams?${q({ prefix, after, limit: 50 })}`),
  stream: (name: string) => request<StreamSummary>(`/api/stream?${q({ name })}`),
  /** A page of a stream's events; `cursor` is the previous page's `next`. Newest first reads the stream backwards. */
  events: (stream: string, order: Order, cursor?: number, names?: string) =>
    request<{ events: WireEvent[]; next?: number }>(
      `/api/events?${q({ stream, order, [order === "newest" ? "before" : "after"]: cursor, names, limit: 200 })}`
    ),
  event: (id: string | number) =>
    request<{ event: WireEvent; cause: WireEvent | null; caused: WireEvent[] } & SearchPage>(`/api/event?${q({ id })}`),
  caused: (id: string | number, after: number) =>
    request<{ caused: WireEvent[] } & SearchPage>(`/api/caused?${q({ id, after })}`),
  correlation: (id: string, after?: number) =>
    request<{ events: WireEvent[] } & SearchPage>(`/api/correlation?${q({ id, after })}`),
  state: (stream: string, version: number) =>
    request<{ state: string; version: number; before: unknown; after: unknown; changes: Change[] }>(
      `/api/state?${q({ stream, version })}`
    ),
  reactions: (filter: { q: string; state: ReactionState; after?: string }) =>
    request<ReactionPage>(`/api/reactions?${q({ ...filter, state: filter.state, limit: 50 })}`),
  timers: (filter: { action: string; stream: string; after?: string }) =>
    request<TimerPage>(`/api/timers?${q({ ...filter, limit: 50 })}`),
  timer: (id: string) => request<TimerDetail>(`/api/timer?${q({ id })}`),
  operate: (operation: "unblock" | "reset", streams: string[]) =>
    request<Record<string, string[]>>(`/api/reactions/${operation}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ streams }),
    }),
};
