/**
 * The calculator's code: the real `@act-root/act` with its in-memory store,
 * zod and the example's state, behind four functions. It is a chunk of its
 * own that ./useCalculator.ts fetches on the reader's first interaction with
 * the calculator, so a reader who only reads the page never pays for it.
 *
 * Each key runs `press()` from `@act-root/calculator` — a real
 * `app.do(...)` — and the view is read back from the library: the stream's
 * events (`queryArray`, snapshots included) and the state (`load`).
 */
import { InvariantError, SNAP_EVENT, ValidationError } from "@act-root/act";
import { app, Calculator, display, expression, type Key, press, toKey } from "@act-root/calculator";
import type { View } from "./CalculatorView";

export { press, toKey, type Key };

/** What the calculator shows for `stream`, read from the store. */
export async function read(stream: string): Promise<View> {
  const events = await app.queryArray({ stream, with_snaps: true });
  const { state, patches, snaps } = await app.load(Calculator, stream);
  return {
    display: display(state),
    expression: expression(state),
    state,
    patches,
    snaps,
    events: events.map((event) => {
      const snapshot = (event.name as string) === SNAP_EVENT;
      return {
        id: event.id,
        version: event.version,
        name: snapshot ? "snapshot" : String(event.name),
        data: JSON.stringify(event.data),
        snapshot,
      };
    }),
  };
}

/** A refused key, in words: the invariant's description or the validation message. */
export function explain(error: unknown): string {
  if (error instanceof InvariantError) return `Refused: ${error.description}.`;
  if (error instanceof ValidationError) return `Invalid key: ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}
