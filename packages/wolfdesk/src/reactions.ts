/**
 * WolfDesk's reactions: what the help desk does by itself after an event is
 * committed. (Escalating a ticket nobody answers is not a reaction but a
 * deadline the ticket sets when it opens: see `ticket.ts`.) They run when the app drains, act as the {@link SYSTEM} actor,
 * and pass the event they react to as the last argument of `app.do`, so the
 * events they cause share its correlation id and name it as their cause.
 */
import { type Actor, type AsCommitted, type Dispatcher, InvariantError, type State } from "@act-root/act";
import type { Escalations } from "./escalations.js";
import { agent, ESCALATIONS, SYSTEM, supervisor } from "./schemas.js";
import type { Ticket } from "./ticket.js";

/** The actions the reactions may ask for: those of both states, their payloads as `app.do` takes them. */
type ActionsOf<T> = T extends State<any, any, any, any, infer A> ? A : never;
type Actions = ActionsOf<typeof Ticket> & ActionsOf<typeof Escalations>;

/** The agents on the rota. */
export const AGENTS: readonly Actor[] = [agent("ada", "Ada"), agent("linus", "Linus"), agent("grace", "Grace")];
/** The supervisor who answers escalations in the demo. */
export const SUPERVISOR: Actor = supervisor("sam", "Sam");

/** Picks an agent for a ticket: the same ticket always gets the same agent. */
export function pickAgent(ticket: string): Actor {
  let hash = 0;
  for (const char of ticket) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return AGENTS[hash % AGENTS.length];
}

/**
 * Reactions run after the fact: by the time one runs, the ticket may have
 * moved on (resolved, closed). A broken invariant then means "too late", not
 * a failure worth retrying — or blocking the stream over — so it is dropped.
 */
async function unlessTooLate(action: Promise<unknown>) {
  try {
    await action;
  } catch (error) {
    if (!(error instanceof InvariantError)) throw error;
  }
}

/** TicketOpened → assign the ticket to an agent from the rota. */
export async function autoAssign(
  event: AsCommitted<typeof Ticket, "TicketOpened">,
  _stream: string,
  app: Dispatcher<Actions>
) {
  const agent = pickAgent(event.stream).id;
  await unlessTooLate(
    app.do("AssignTicket", { stream: event.stream, actor: SYSTEM }, { agent }, { reactingTo: event })
  );
}

/** TicketEscalated → put the ticket on the supervisors' queue (another stream). */
export async function queueEscalation(
  event: AsCommitted<typeof Ticket, "TicketEscalated">,
  _stream: string,
  app: Dispatcher<Actions>
) {
  await app.do(
    "QueueEscalation",
    { stream: ESCALATIONS, actor: SYSTEM },
    { ticket: event.stream, reason: event.data.reason },
    { reactingTo: event }
  );
}
