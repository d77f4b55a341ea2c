/**
 * WolfDesk over HTTP, on `@act-root/act-http`. This file holds only what is
 * WolfDesk's own: which actions the outside world may call, who may call
 * each one and read which ticket, how a ticket id becomes a stream, and the
 * ticket list read. Authentication, limits, errors, ETag / If-Match,
 * Idempotency-Key, `?wait=reactions`, live events and the OpenAPI document
 * come from the package. Every business rule stays in the states: these
 * rules only keep callers away from tickets that are not theirs.
 */
import { type ActHttp, type Authenticate, http, read, stream } from "@act-root/act-http";
import type { Actor } from "@act-root/act";
import { app, listTickets, Priority, roleOf, Status, Ticket, TicketList, type TicketState } from "@act-root/wolfdesk";
import { z } from "zod";

/** A ticket's people: its customer, its agent, and every supervisor. Everyone else gets 403. */
export const involved = (actor: Actor, ticket: Readonly<TicketState>): boolean =>
  actor.id === ticket.customer || actor.id === ticket.agent || roleOf(actor) === "supervisor";

/** The rule of the actions on an existing ticket: the caller is one of its people. */
const onTicket = {
  authorize: async ({ actor, load }: { actor: Actor; load: () => Promise<{ state: Readonly<TicketState> }> }) =>
    involved(actor, (await load()).state),
};

/** A row of the ticket list, as the read answers it. */
const TicketRow = z.object({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  priority: z.string(),
  agent: z.string().nullable(),
});

/**
 * The WolfDesk API:
 *
 * - `POST /streams/Ticket/{id}/{action}` for `OpenTicket` (customers),
 *   `AssignTicket` (supervisors), `AddMessage`, `EscalateTicket`,
 *   `ResolveTicket`, `CloseTicket` (the ticket's people; the ticket's own
 *   invariants decide the rest);
 * - `GET /streams/Ticket/{id}` and `GET /streams/Ticket/{id}/events` for the
 *   ticket's people;
 * - `GET /reads/tickets?status=open`: supervisors see every ticket, agents
 *   those assigned to them, customers their own — and the same list live at
 *   `GET /reads/tickets/changes` (server-sent events);
 * - `GET /openapi.json`.
 *
 * @param authenticate - finds the caller of a request (see tokens.ts for the demo's)
 */
export function api(authenticate: Authenticate): ActHttp {
  return http(app, {
    authenticate,
    actions: {
      OpenTicket: { authorize: ({ actor }) => roleOf(actor) === "customer", summary: "A customer opens a ticket" },
      AssignTicket: { authorize: ({ actor }) => roleOf(actor) === "supervisor" },
      AddMessage: onTicket,
      EscalateTicket: onTicket,
      ResolveTicket: onTicket,
      CloseTicket: onTicket,
      // QueueEscalation is not listed: only the escalation reaction asks for it.
    },
    streams: [
      stream(Ticket, {
        stream: (id) => `ticket-${id}`,
        // A ticket that does not exist yet has nothing to show (404), whoever asks.
        authorize: ({ actor, state }) => state.status === "new" || involved(actor, state),
      }),
    ],
    reads: {
      tickets: read({
        query: z.object({ status: Status.optional(), priority: Priority.optional() }),
        answer: z.array(TicketRow),
        authorize: () => true,
        // Also served live, at GET /reads/tickets/changes, as the projection moves.
        projection: TicketList,
        read: async ({ status, priority }, actor) => {
          const role = roleOf(actor);
          return (await listTickets()).filter(
            (row) =>
              (role === "supervisor" || row.agent === actor.id || row.customer === actor.id) &&
              (!status || row.status === status) &&
              (!priority || row.priority === priority)
          );
        },
        summary: "The tickets the caller may see, from the ticket list projection",
      }),
    },
    // Messages and titles are short: no need for the 10,000-character default.
    limits: { stringLength: 4_000, bodyBytes: 16 * 1024 },
    info: { title: "WolfDesk", version: "1.0.0" },
  });
}
