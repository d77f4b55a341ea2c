/**
 * WolfDesk, a help-desk ticket workflow built with Act.
 */
export * from "./schemas.js";
export { Ticket } from "./ticket.js";
export { Escalations } from "./escalations.js";
export * from "./reactions.js";
export { app, buildApp, deskClock, settle } from "./app.js";
export { TicketList, TICKET_LIST, type TicketRow, memoryList } from "./ticket-list.js";
export { listTickets } from "./ticket-reader.js";
export { connect, postgresOptions, sqliteFile, wantsPostgres } from "./store.js";
export { run, until } from "./scenario.js";
