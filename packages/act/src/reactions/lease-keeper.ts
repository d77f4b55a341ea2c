import { logger } from "../core/ports.js";
import type { Store } from "../types/ports.js";
import type { Lease } from "../types/lease.js";

/** The longest delay a timer takes (about 24.8 days); longer leases are renewed and waited for in steps of this. */
export const MAX_TIMER = 2 ** 31 - 1;

/**
 * Keeps one stream's lease while its handlers run: renews it every third of
 * its length, and before each handler makes sure at least half of it is left
 * (renewing at once if not), so no handler starts on a lease about to lapse.
 * A renewal carries the lease's token. Once the store refuses one — an
 * operator reset or unblocked the stream, or another drainer holds it — or a
 * renewal fails with an error, or the lease's deadline passes without a
 * renewal (a paused or starved process), the lease counts as lost for good:
 * `signal` aborts, so the handler running now learns it, and no handler
 * starts on it again. A renewal that failed may have left the lease to run
 * out in the store, and another drainer may then take the stream; carrying
 * on until the deadline would run the same event in two places.
 */
export class Keeper {
  /** Aborted, with the reason, once the lease is lost: the one record of the loss. */
  private readonly controller = new AbortController();
  private expires: number;
  private readonly timer: ReturnType<typeof setInterval>;
  private deadline?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly log: Store,
    private readonly lease: Lease,
    private readonly millis: number,
    grantedAt: number
  ) {
    this.expires = grantedAt + millis;
    this.timer = setInterval(() => void this.renew(), Math.min(MAX_TIMER, Math.max(1, Math.floor(millis / 3))));
    (this.timer as { unref?: () => void }).unref?.();
    this.watch();
  }

  /** Aborts when the lease may no longer be this drainer's. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the lease may no longer be this drainer's (what `signal` aborts with), once that is so. */
  get reason(): Error | undefined {
    return this.lost ? (this.controller.signal.reason as Error) : undefined;
  }

  /** The lease's generation, for handlers that pass it on to systems that can refuse an older one. */
  get token(): number {
    return this.lease.token ?? 0;
  }

  get lost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Whether a handler may start without asking the store: still held, with more than half of it left. */
  get fresh(): boolean {
    return !this.lost && this.expires - Date.now() > this.millis / 2;
  }

  /**
   * Whether the lease is still this drainer's, for at least half its length.
   * A renewal the store does not answer is not waited for past the lease's
   * deadline: the lease is lost then, and the batch ends instead of hanging
   * on a stuck database.
   */
  async ready(): Promise<boolean> {
    if (this.lost) return false;
    if (this.fresh) return true;
    const signal = this.signal;
    let abort: (() => void) | undefined;
    const lost = new Promise<false>((resolve) => {
      abort = () => resolve(false);
      signal.addEventListener("abort", abort, { once: true });
    });
    try {
      return await Promise.race([this.renew(), lost]);
    } finally {
      signal.removeEventListener("abort", abort!);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.deadline);
  }

  /** The lease is no longer this drainer's: an operator command took the stream back. */
  revoke(): void {
    this.lose(
      `lease of reaction stream "${this.lease.stream}" was given up for an operator command (reset or unblock)`
    );
  }

  /**
   * Lost for good: nothing renews it or watches its deadline any more. A
   * second loss changes nothing (an aborted signal keeps its first reason).
   */
  private lose(reason: string): void {
    this.stop();
    this.controller.abort(new Error(reason));
  }

  /**
   * Aborts at the lease's deadline unless a renewal moved it: a process that
   * was paused past it finds the signal aborted as soon as it runs again,
   * since another drainer may have taken the stream meanwhile.
   */
  private watch(): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(
      () => {
        if (Date.now() >= this.expires)
          this.lose(
            `lease of reaction stream "${this.lease.stream}" passed its deadline without a renewal (the process was paused or starved); another drainer may hold it`
          );
        else this.watch();
      },
      Math.min(MAX_TIMER, Math.max(0, this.expires - Date.now()))
    );
    (this.deadline as { unref?: () => void }).unref?.();
  }

  /** Asked only while the lease is held: `ready` checks first, and losing it stops the renewals. */
  private async renew(): Promise<boolean> {
    const asked = Date.now();
    try {
      const granted = await this.log.lease([this.lease], this.millis);
      // Lost while the store answered (an operator command): a late grant must not revive it.
      if (this.lost) return false;
      if (granted.length) {
        this.expires = Math.max(this.expires, asked + this.millis);
        this.watch();
        return true;
      }
      const message = `lease of reaction stream "${this.lease.stream}" was lost while its handlers ran (reset, unblocked or taken over); stopping after the current one`;
      this.lose(message);
      logger.error(message);
      return false;
    } catch (error) {
      const message = `lease of reaction stream "${this.lease.stream}" could not be renewed; stopping after the current handler`;
      this.lose(`${message}: ${(error as Error)?.message ?? String(error)}`);
      logger.error(error, message);
      return false;
    }
  }
}
