/**
 * WolfDesk over HTTP: the API on `@act-root/act-http`, the Node server with
 * a graceful stop, and the demo authentication.
 */
export { api, involved } from "./http.js";
export { type Running, start } from "./server.js";
export { demoToken, demoTokens } from "./tokens.js";
