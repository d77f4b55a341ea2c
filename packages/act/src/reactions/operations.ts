import type { Drainer } from "./drain.js";
import type { Store } from "../types/ports.js";
import type { ReactionStream } from "../types/reaction-streams.js";

/**
 * The operator's commands on reaction streams (`app.blocked`, `app.unblock`,
 * `app.reset`). A command is made in the store, so every process sees it;
 * this app's drainer also gives up its leases on the streams at once, and
 * its consumer is woken to take them up again.
 */
export class Operations {
  /**
   * @param store - the app's store, read at each command
   * @param drainer - the app's drainer, whose leases on the streams end with the command
   * @param wake - wakes the app's consumer, if one runs
   */
  constructor(
    private readonly store: () => Store,
    private readonly drainer: Drainer<any>,
    private readonly wake: () => void
  ) {}

  /** The blocked reaction streams. */
  blocked(): Promise<ReactionStream[]> {
    return this.store().reactions({ blocked: true });
  }

  /** Unblocks streams; returns those that were blocked. */
  unblock(streams: string[]): Promise<string[]> {
    return this.command(this.store().unblock(streams));
  }

  /** Takes streams back to the start of the log; returns those reset. */
  reset(streams: string[]): Promise<string[]> {
    return this.command(this.store().reset(streams));
  }

  private async command(made: Promise<string[]>): Promise<string[]> {
    const streams = await made;
    this.drainer.revoke(streams);
    this.wake();
    return streams;
  }
}
