/**
 * The WolfDesk app: both states, the reactions that tie them together, and
 * the ticket list projection.
 */
import { act } from "@act-root/act";
import { Escalations } from "./escalations.js";
import { autoAssign, escalateWaiting, queueEscalation } from "./reactions.js";
import { ESCALATIONS } from "./schemas.js";
import { Ticket } from "./ticket.js";
import { TicketList } from "./ticket-list.js";

export const app = act()
  .with(Ticket)
  .with(Escalations)
  // Runs on the ticket's own stream (the default).
  .on("TicketOpened")
  .do(autoAssign)
  .on("MessageAdded")
  .do(escalateWaiting)
  // Runs on the escalations stream: one lease serialises the whole queue.
  .on("TicketEscalated")
  .do(queueEscalation)
  .to(ESCALATIONS)
  // The ticket list, a read model in the store's database.
  .with(TicketList)
  .build();

/**
 * Drains until no reaction is left to run — what the tests do after each
 * step, so they check every reaction's outcome. A process runs the app's
 * consumer instead (`app.start()`, as main.ts does).
 *
 * @returns how many stream leases were acknowledged
 * @throws when a reaction stream gets blocked
 */
export async function settle(maxRounds = 50): Promise<number> {
  let acknowledged = 0;
  for (let round = 0; round < maxRounds; round++) {
    const { acked, blocked } = await app.drain({ streamLimit: 20, eventLimit: 50 });
    if (blocked.length) throw new Error(`Reactions blocked: ${blocked.map((b) => b.error).join("; ")}`);
    if (!acked.length) return acknowledged;
    acknowledged += acked.length;
  }
  return acknowledged;
}
