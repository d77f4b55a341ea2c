/**
 * WolfDesk's vocabulary: who acts (roles), what a ticket looks like, and the
 * payloads of its actions and events — all as zod schemas, so every payload
 * is validated at the edge and every type is inferred from one place.
 */
import type { Actor } from "@act-root/act";
import { z } from "zod";

// ---------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------

/** Who can act on a ticket. */
export const Roles = ["customer", "agent", "supervisor", "system"] as const;
export type Role = (typeof Roles)[number];

/**
 * Reads an actor's role from its id, `role:name` (e.g. `agent:ada`).
 *
 * Act's {@link Actor} is `{ id, name }`; where the role comes from is the
 * app's business. A real help desk takes it from its identity provider's
 * claims; this example keeps it in the id so every event's causation shows it.
 */
export function roleOf(actor?: Actor): Role | undefined {
  const prefix = actor?.id.split(":")[0];
  return (Roles as readonly string[]).includes(prefix ?? "") ? (prefix as Role) : undefined;
}

const person =
  (role: Exclude<Role, "system">) =>
  (id: string, name: string): Actor => ({ id: `${role}:${id}`, name });

/** Makes a customer actor: `customer("carla", "Carla")` → `{ id: "customer:carla", … }`. */
export const customer = person("customer");
/** Makes an agent actor. */
export const agent = person("agent");
/** Makes a supervisor actor. */
export const supervisor = person("supervisor");
/** The help desk itself: the actor of every reaction. */
export const SYSTEM: Actor = { id: "system:wolfdesk", name: "WolfDesk" };

/** An actor id that can be assigned a ticket: an agent's or a supervisor's. */
export const StaffId = z
  .string()
  .regex(/^(agent|supervisor):.+/, 'must be an agent or supervisor id ("agent:…" or "supervisor:…")');

// ---------------------------------------------------------------------------
// The ticket
// ---------------------------------------------------------------------------

export const Priority = z.enum(["low", "normal", "high"]);
export type Priority = z.infer<typeof Priority>;

const HOUR = 3_600_000;
/** How long a ticket may wait for staff's first answer before the desk escalates it, by priority. */
export const SLA_MILLIS: Record<Priority, number> = { high: 1 * HOUR, normal: 4 * HOUR, low: 24 * HOUR };
/** The id of a ticket's escalation deadline: one per ticket. */
export const deadlineOf = (ticket: string) => `escalate-${ticket}`;

/** A ticket's life: new (no events yet) → open → resolved → closed. */
export const Status = z.enum(["new", "open", "resolved", "closed"]);
export type Status = z.infer<typeof Status>;

export const TicketSchema = z.object({
  status: Status,
  title: z.string(),
  priority: Priority,
  /** The customer who opened it (actor id). */
  customer: z.string(),
  /** The agent (or supervisor) working on it (actor id). */
  agent: StaffId.optional(),
  escalated: z.boolean(),
  /** Messages on the ticket, the opening one included. */
  messages: z.number().int(),
  /** Customer messages since the last reply from staff. */
  unanswered: z.number().int(),
  resolution: z.string().optional(),
});
export type TicketState = z.infer<typeof TicketSchema>;

// ---------------------------------------------------------------------------
// Events: facts, in the past tense
// ---------------------------------------------------------------------------

export const TicketEvents = {
  TicketOpened: z.object({
    title: z.string(),
    message: z.string(),
    priority: Priority,
    customer: z.string(),
  }),
  TicketAssigned: z.object({ agent: StaffId, by: z.string() }),
  TicketEscalated: z.object({ reason: z.string(), by: z.string() }),
  MessageAdded: z.object({
    body: z.string(),
    from: z.string(),
    role: z.enum(Roles),
    /** Customer messages waiting for a reply, this one included (0 for a staff reply). */
    unanswered: z.number().int(),
  }),
  TicketResolved: z.object({ resolution: z.string(), by: z.string() }),
  TicketClosed: z.object({ by: z.string() }),
};

// ---------------------------------------------------------------------------
// Actions: requests, in the imperative
// ---------------------------------------------------------------------------

export const TicketActions = {
  OpenTicket: z.object({
    title: z.string().min(3, "a title needs at least 3 characters"),
    message: z.string().min(1, "say what the problem is"),
    priority: Priority.optional(),
  }),
  AssignTicket: z.object({ agent: StaffId }),
  EscalateTicket: z.object({ reason: z.string().min(1) }),
  AddMessage: z.object({ body: z.string().min(1, "a message cannot be empty") }),
  ResolveTicket: z.object({ resolution: z.string().min(1, "say how it was resolved") }),
  CloseTicket: z.object({}),
};

// ---------------------------------------------------------------------------
// The escalation queue: one stream the supervisors watch
// ---------------------------------------------------------------------------

/** The name of the stream that queues escalated tickets. */
export const ESCALATIONS = "escalations";

export const Escalation = z.object({ ticket: z.string(), reason: z.string() });
export type Escalation = z.infer<typeof Escalation>;

export const EscalationsSchema = z.object({ queue: z.array(Escalation) });
