import type { Committed, Schemas } from "@act-root/act";

/** A committed event as the page receives it, its payloads possibly cut. */
export type WireEvent = Omit<Committed<Schemas, string>, "data" | "meta"> & {
  data: unknown;
  meta: unknown;
  truncated?: { data?: number; meta?: number };
};

/** Cuts an event's `data` and `meta` longer than `truncateAt` characters of JSON, saying how long they were. */
export function cutter(truncateAt: number): (e: Committed<Schemas, string>) => WireEvent {
  return (e) => {
    const out: WireEvent = { ...e };
    for (const key of ["data", "meta"] as const) {
      const json = JSON.stringify(e[key]) ?? "null";
      if (json.length > truncateAt) {
        out[key] = `${json.slice(0, truncateAt)}…`;
        out.truncated = { ...out.truncated, [key]: json.length };
      }
    }
    return out;
  };
}
