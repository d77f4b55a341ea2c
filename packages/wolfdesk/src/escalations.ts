/**
 * The escalation queue: a second state, on one stream (`escalations`), that
 * supervisors watch. Only the help desk writes to it — a reaction queues each
 * escalated ticket — which shows a reaction acting on a stream other than the
 * one its event came from.
 */
import { state } from "@act-root/act";
import { Escalation, EscalationsSchema, roleOf } from "./schemas.js";

export const Escalations = state("Escalations", EscalationsSchema)
  .init(() => ({ queue: [] }))
  .emits({ EscalationQueued: Escalation })
  // Arrays are replaced, not merged: return the whole new queue.
  .patch({ EscalationQueued: ({ data }, { queue }) => ({ queue: [...queue, data] }) })
  .on("QueueEscalation", Escalation)
  .given([{ description: "Only the help desk queues escalations", valid: (_, actor) => roleOf(actor) === "system" }])
  // Reactions run at least once: queueing the same ticket again is a no-op.
  .emit((escalation, { state: { queue } }) =>
    queue.some((queued) => queued.ticket === escalation.ticket) ? undefined : ["EscalationQueued", escalation]
  )
  .build();
