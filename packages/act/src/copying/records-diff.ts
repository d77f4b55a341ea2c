/**
 * Comparing the records two stores keep beside their events, as canonical
 * texts, and saying where they first differ — without ever printing a data
 * subject's key.
 */
import type { StoreRecords, SubjectRecord } from "../types/transfer.js";

/** Sorts an object's keys, so two stores' orders of them compare equal. */
const sortedKeys = (value: object) => Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * Records as canonical texts, sorted: object keys sorted, and the arrays whose
 * order carries nothing (`done`, `reactions`, a subject's streams) too —
 * each store keeps its own order of them, and of the rows (byte order or
 * UTF-16 order of names).
 */
function recordsText(records: StoreRecords, part: keyof StoreRecords): string[] {
  // A subject's text starts with its name, so sorted texts pair subjects up even when their keys differ.
  if (part === "subjects")
    return records.subjects.map((s) => JSON.stringify([s.subject, s.keys, [...s.streams].sort()])).sort();
  return (records[part] as readonly object[])
    .map((row) =>
      JSON.stringify(row, (key, value) => {
        if ((key === "done" || key === "reactions") && Array.isArray(value)) return [...value].sort();
        if ((key === "" || key === "ahead") && value && typeof value === "object") return sortedKeys(value);
        return value;
      })
    )
    .sort();
}

/** A subject's record as it may be printed: its key versions as live or destroyed, never the keys. */
function redacted(text: string | undefined): string {
  if (text === undefined) return "(none)";
  const [subject, keys, streams] = JSON.parse(text) as [string, SubjectRecord["keys"], string[]];
  return JSON.stringify({ subject, keys: keys.map((key) => (key === null ? "destroyed" : "live")), streams });
}

/** The first record that differs between two sets, in words; `undefined` when they are equal. */
export function recordsDiffer(source: StoreRecords, target: StoreRecords): string | undefined {
  for (const part of ["watermarks", "keys", "discovery", "timers", "subjects"] as const) {
    const a = recordsText(source, part);
    const b = recordsText(target, part);
    const show = part === "subjects" ? redacted : (text: string | undefined) => text ?? "(none)";
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      if (a[i] !== b[i])
        return part === "subjects" && show(a[i]) === show(b[i])
          ? `the keys of data subject ${JSON.stringify((JSON.parse(a[i]) as [string])[0])} differ (not shown)`
          : `${part} differ: source ${show(a[i])}, target ${show(b[i])}`;
  }
  return undefined;
}
