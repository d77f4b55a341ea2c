/**
 * The ticket state: one stream per ticket (`ticket-…`). Each action checks
 * its invariants — what must hold, and who may ask — before it decides which
 * event happened. Opening a ticket sets its escalation deadline (a timer, in
 * the same commit); staff's first answer, a resolution or an escalation by
 * hand cancels it.
 */
import { type Actor, type Invariant, state } from "@act-root/act";
import {
  deadlineOf,
  roleOf,
  SLA_MILLIS,
  SYSTEM,
  type TicketState,
  TicketActions,
  TicketEvents,
  TicketSchema,
} from "./schemas.js";

// --- invariants, reused across actions -----------------------------------

const mustBeOpen: Invariant<TicketState> = {
  description: "Ticket must be open",
  valid: (ticket) => ticket.status === "open",
};

const isStaff = (actor?: Actor) => roleOf(actor) === "supervisor" || roleOf(actor) === "system";

// --- the state -------------------------------------------------------------

export const Ticket = state("Ticket", TicketSchema)
  .init(() => ({
    status: "new",
    title: "",
    priority: "normal",
    customer: "",
    escalated: false,
    messages: 0,
    unanswered: 0,
  }))
  .emits(TicketEvents)
  .patch({
    TicketOpened: ({ data }) => ({
      status: "open",
      title: data.title,
      priority: data.priority,
      customer: data.customer,
      messages: 1,
      unanswered: 1,
    }),
    TicketAssigned: ({ data }) => ({ agent: data.agent }),
    // Escalation raises the priority too; keys a patch leaves out keep their values.
    TicketEscalated: () => ({ escalated: true, priority: "high" }),
    MessageAdded: ({ data }, ticket) => ({ messages: ticket.messages + 1, unanswered: data.unanswered }),
    TicketResolved: ({ data }) => ({ status: "resolved", resolution: data.resolution }),
    TicketClosed: () => ({ status: "closed" }),
  })

  .on("EscalateTicket", TicketActions.EscalateTicket)
  .given([
    mustBeOpen,
    {
      description: "Only the assigned agent or a supervisor escalates",
      valid: (ticket, actor) => isStaff(actor) || (roleOf(actor) === "agent" && actor?.id === ticket.agent),
    },
  ])
  // Escalating twice is a no-op. Escalated by hand, the ticket's deadline has nothing left to do.
  .emit(({ reason }, { state: ticket }, { stream, actor }, { cancel }) => {
    if (ticket.escalated) return undefined;
    cancel(deadlineOf(stream));
    return ["TicketEscalated", { reason, by: actor.id }];
  })

  .on("OpenTicket", TicketActions.OpenTicket)
  .given([
    { description: "Ticket already exists", valid: (ticket) => ticket.status === "new" },
    { description: "Only customers open tickets", valid: (_, actor) => roleOf(actor) === "customer" },
  ])
  // The escalation deadline commits with the ticket: there is no open ticket without one. It runs
  // EscalateTicket as the desk once the priority's SLA has passed, unless staff answered first.
  .emit(({ title, message, priority = "normal" }, _, { stream, actor }, { schedule }) => {
    schedule({
      id: deadlineOf(stream),
      action: "EscalateTicket",
      target: { stream, actor: SYSTEM },
      payload: { reason: `no answer within ${SLA_MILLIS[priority] / 3_600_000} h` },
      afterMillis: SLA_MILLIS[priority],
    });
    return ["TicketOpened", { title, message, priority, customer: actor.id }];
  })

  .on("AssignTicket", TicketActions.AssignTicket)
  .given([
    mustBeOpen,
    { description: "Only supervisors (or the help desk itself) assign tickets", valid: (_, actor) => isStaff(actor) },
  ])
  // No event when nothing changes: the agent already has it, or the help desk
  // (a reaction) comes after a supervisor already chose someone.
  .emit(({ agent }, { state: ticket }, { actor }) =>
    ticket.agent === agent || (ticket.agent && roleOf(actor) === "system")
      ? undefined
      : ["TicketAssigned", { agent, by: actor.id }]
  )

  .on("AddMessage", TicketActions.AddMessage)
  .given([
    { description: "Only open tickets accept messages", valid: (ticket) => ticket.status === "open" },
    {
      description: "Only the ticket's customer, its agent or a supervisor can write",
      valid: (ticket, actor) =>
        actor?.id === ticket.customer || actor?.id === ticket.agent || roleOf(actor) === "supervisor",
    },
  ])
  .emit(({ body }, { state: ticket }, { stream, actor }, { cancel }) => {
    const role = roleOf(actor)!;
    // A customer message adds to the wait; any reply from staff ends it, and the escalation deadline with it.
    const unanswered = role === "customer" ? ticket.unanswered + 1 : 0;
    if (role !== "customer") cancel(deadlineOf(stream));
    return ["MessageAdded", { body, from: actor.id, role, unanswered }];
  })

  .on("ResolveTicket", TicketActions.ResolveTicket)
  .given([
    mustBeOpen,
    {
      description: "Only the assigned agent resolves (or a supervisor, once escalated)",
      valid: (ticket, actor) =>
        (actor?.id !== undefined && actor.id === ticket.agent) || (ticket.escalated && roleOf(actor) === "supervisor"),
    },
  ])
  .emit(({ resolution }, _, { stream, actor }, { cancel }) => {
    cancel(deadlineOf(stream));
    return ["TicketResolved", { resolution, by: actor.id }];
  })

  .on("CloseTicket", TicketActions.CloseTicket)
  .given([
    { description: "Only resolved tickets can be closed", valid: (ticket) => ticket.status === "resolved" },
    {
      description: "Only the ticket's customer or a supervisor closes",
      valid: (ticket, actor) => actor?.id === ticket.customer || roleOf(actor) === "supervisor",
    },
  ])
  .emit((_, __, { actor }) => ["TicketClosed", { by: actor.id }])

  .snap((snapshot) => snapshot.patches >= 20)
  .build();
