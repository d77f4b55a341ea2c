/**
 * WolfDesk, a help-desk ticket workflow built with Act.
 */
export * from "./schemas.js";
export { Ticket } from "./ticket.js";
export { Escalations } from "./escalations.js";
export * from "./reactions.js";
export { app, settle } from "./app.js";
export { connect, postgresOptions, sqliteFile, wantsPostgres } from "./store.js";
export { run, until } from "./scenario.js";
