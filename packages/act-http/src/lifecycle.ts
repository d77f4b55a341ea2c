/**
 * A graceful stop: once `close()` is called, new requests get 503 (with
 * `Connection: close`), requests in flight finish and are answered, and
 * open event streams are ended. The runtime's own server (Node's, Bun's,
 * Deno's) stops accepting connections; this is the part that runs on all of
 * them alike.
 */
export class Lifecycle {
  private inFlight = 0;
  private idle?: () => void;
  private closed?: Promise<void>;
  /** Open event streams, each ended by aborting its controller. */
  readonly streams = new Set<AbortController>();

  /** Whether `close()` was called. */
  get closing(): boolean {
    return this.closed !== undefined;
  }

  /** Counts a request in flight until the returned function is called. */
  enter(): () => void {
    this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight--;
      if (this.inFlight === 0) this.idle?.();
    };
  }

  /** Ends the event streams and resolves once every request in flight has been answered. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      for (const stream of this.streams) stream.abort();
      if (this.inFlight === 0) resolve();
      else this.idle = resolve;
    });
    return this.closed;
  }
}
