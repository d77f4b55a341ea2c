/**
 * WolfDesk over HTTP: the Hono app, the server with a graceful stop, and the
 * demo authentication.
 */
export { type Authenticate, api, etag, problem } from "./http.js";
export { type Running, start } from "./server.js";
export { demoTokens } from "./tokens.js";
