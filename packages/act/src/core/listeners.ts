import { logger } from "./ports.js";

/**
 * The listeners of an app's lifecycle events (`app.on`/`app.off`), by
 * event. They run synchronously, in the order they were added; one that
 * throws is logged and the others still run — a listener's failure is not
 * the action's or the drain's that told it.
 *
 * @typeParam L - each event's payload, by event name
 */
export class Listeners<L extends Record<string, unknown>> {
  private readonly byEvent = new Map<keyof L, Set<(payload: any) => void>>();

  /** Adds a listener to an event; adding the same function twice keeps one. */
  on<K extends keyof L>(event: K, listener: (payload: L[K]) => void): void {
    const set = this.byEvent.get(event) ?? new Set();
    set.add(listener);
    this.byEvent.set(event, set);
  }

  /** Removes a listener added with {@link Listeners.on}. */
  off<K extends keyof L>(event: K, listener: (payload: L[K]) => void): void {
    this.byEvent.get(event)?.delete(listener);
  }

  /** Calls each listener of the event with its payload. */
  emit<K extends keyof L>(event: K, payload: L[K]): void {
    for (const listener of this.byEvent.get(event) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        logger.error(error, `"${String(event)}" listener threw`);
      }
    }
  }
}
