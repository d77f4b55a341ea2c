/**
 * The WolfDesk app: both states, the reactions that tie them together, and
 * the ticket list projection — on the desk's clock, which decides when a
 * ticket's escalation deadline is due.
 */
import { act, type Clock } from "@act-root/act";
import { Escalations } from "./escalations.js";
import { autoAssign, queueEscalation } from "./reactions.js";
import { ESCALATIONS } from "./schemas.js";
import { Ticket } from "./ticket.js";
import { TicketList } from "./ticket-list.js";

/**
 * The desk's clock: the system's time, moved forward by `skip` — the
 * command-line story skips the hours a customer would wait, so a deadline
 * comes due in a second rather than in four hours. Nothing else skips.
 */
export const deskClock = {
  skipped: 0,
  now: () => new Date(Date.now() + deskClock.skipped),
  /** Moves the desk's time forward by `millis`. */
  skip(millis: number) {
    deskClock.skipped += millis;
  },
};

/** Builds the app on a clock: the desk's, or a test's `testClock()`. */
export function buildApp(clock: Clock = deskClock) {
  return (
    act()
      .with(Ticket)
      .with(Escalations)
      // Runs on the ticket's own stream (the default).
      .on("TicketOpened")
      .do(autoAssign)
      // Runs on the escalations stream: one lease serialises the whole queue.
      .on("TicketEscalated")
      .do(queueEscalation)
      .to(ESCALATIONS)
      // The ticket list, a read model in the store's database.
      .with(TicketList)
      .build({ clock })
  );
}

export const app = buildApp();

/**
 * Drains until no reaction is left to run and no timer is due — what the
 * tests do after each step, so they check every reaction's outcome. A
 * process runs the app's consumer instead (`app.start()`, as main.ts does).
 *
 * @returns how many stream leases were acknowledged
 * @throws when a reaction stream gets blocked
 */
export async function settle(maxRounds = 50, desk = app): Promise<number> {
  let acknowledged = 0;
  for (let round = 0; round < maxRounds; round++) {
    const { acked, blocked, fired = [] } = await desk.drain({ streamLimit: 20, eventLimit: 50 });
    if (blocked.length) throw new Error(`Reactions blocked: ${blocked.map((b) => b.error).join("; ")}`);
    if (!acked.length && !fired.length) return acknowledged;
    acknowledged += acked.length;
  }
  return acknowledged;
}
