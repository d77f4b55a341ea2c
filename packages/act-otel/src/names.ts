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
  blockedStreams: "act.reaction.streams.blocked",
  drainCycles: "act.drain.cycles",
  drainDuration: "act.drain.duration",
  leases: "act.drain.leases",
} as const;
