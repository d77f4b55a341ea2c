/**
 * The names this package records under, in one place so the code, the tests
 * and the guide's tables agree. Act's own attributes start with `act.`; the
 * others are OpenTelemetry semantic-convention names.
 */
export const A = {
  state: "act.state",
  action: "act.action",
  stream: "act.stream",
  expectedVersion: "act.expected_version",
  committedVersion: "act.committed_version",
  streamVersion: "act.stream_version",
  events: "act.events",
  correlation: "act.correlation",
  outcome: "act.outcome",
  snapshot: "act.snapshot",
  patches: "act.load.patches",
  reaction: "act.reaction",
  projection: "act.projection",
  firstEventId: "act.projection.first_event_id",
  lastEventId: "act.projection.last_event_id",
  reactionStream: "act.reaction.stream",
  attempt: "act.reaction.attempt",
  eventId: "act.event.id",
  eventName: "act.event.name",
  eventStream: "act.event.stream",
  drainIdle: "act.drain.idle",
  leased: "act.drain.leased",
  fetched: "act.drain.fetched",
  acked: "act.drain.acked",
  blocked: "act.drain.blocked",
  blockedStream: "act.reaction.blocked",
  tenant: "act.tenant",
  dbSystem: "db.system.name",
  dbOperation: "db.operation.name",
  dbRows: "db.response.returned_rows",
  errorType: "error.type",
  messagingSystem: "messaging.system",
  messagingOperationName: "messaging.operation.name",
  messagingOperationType: "messaging.operation.type",
  messagingDestination: "messaging.destination.name",
  messagingGroup: "messaging.consumer.group.name",
  messagingMessageId: "messaging.message.id",
  messagingBatchCount: "messaging.batch.message_count",
  messagingConversation: "messaging.message.conversation_id",
} as const;

/** Metric instrument names. */
export const M = {
  actionDuration: "act.action.duration",
  commits: "act.action.commits",
  conflicts: "act.action.conflicts",
  eventsPerCommit: "act.action.events",
  reactionDuration: "act.reaction.duration",
  reactionLatency: "act.reaction.latency",
  retries: "act.reaction.retries",
  blocks: "act.reaction.blocks",
  lag: "act.reaction.lag",
  streamLag: "act.reaction.stream.lag",
  blockedStreams: "act.reaction.streams.blocked",
  drainCycles: "act.drain.cycles",
  drainDuration: "act.drain.duration",
  leases: "act.drain.leases",
  timersPending: "act.timers.pending",
  timersOverdue: "act.timers.overdue",
  timerLateness: "act.timer.lateness",
} as const;

/**
 * Bucket boundaries, in seconds, of the duration histograms. Without them
 * the SDK's defaults (0, 5, 10, 25 … 10,000) are meant for milliseconds: every
 * action would fall in the first bucket and a 99th percentile would read as
 * about 5 s whatever the real one. These resolve from 1 ms to 10 s.
 */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Bucket boundaries, in seconds, of the reaction latency (from an event's
 * commit to its reaction's end): a reaction that waits for a drain, a backoff
 * or a backlog takes longer than a handler runs, so these reach 10 minutes.
 */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
