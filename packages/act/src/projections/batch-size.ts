/**
 * How many events a projection takes into one transaction, learned per
 * projection stream while it catches up with a backlog.
 *
 * A projection's batch runs in one store transaction with its position, and
 * a transaction cannot stop half-way when a drain's time allowance for
 * backlogs (`backlogMillis`) runs out — so a projection cannot simply read
 * a thousand events as a reaction does and stop when time is up. With a
 * fixed `eventLimit` of 10, though, a projection with a backlog of 100,000
 * events needs 10,000 drains, each paying a lease and a transaction for ten
 * events. So the size adapts: it starts at `eventLimit`, doubles after each
 * full batch (more events were waiting) that took less than half the
 * allowance, up to `max`, and halves (never below `eventLimit`) after a
 * batch that took longer than the allowance. Fast handlers reach large
 * batches within a few drains; slow ones stay near `eventLimit`. Without an
 * allowance (`backlogMillis: 0`) a batch is always `eventLimit`.
 */
export class BatchSizes {
  private readonly sizes = new Map<string, number>();

  /** @param max - the largest batch (the events a drain reads per stream) */
  constructor(private readonly max: number) {}

  /** The batch to take now on `stream`. */
  next(stream: string, eventLimit: number, allowanceMillis: number): number {
    if (allowanceMillis <= 0) return eventLimit;
    return Math.max(eventLimit, Math.min(this.max, this.sizes.get(stream) ?? eventLimit));
  }

  /**
   * Learns from a batch of `size` events on `stream` that took `millis`:
   * `full` when more events were waiting behind it.
   */
  learn(
    stream: string,
    { size, full, millis }: { size: number; full: boolean; millis: number },
    eventLimit: number,
    allowanceMillis: number
  ): void {
    if (allowanceMillis <= 0) return;
    if (millis > allowanceMillis) this.sizes.set(stream, Math.max(eventLimit, Math.floor(size / 2)));
    else if (full && millis < allowanceMillis / 2) this.sizes.set(stream, Math.min(this.max, size * 2));
  }
}
