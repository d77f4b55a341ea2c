/**
 * `npm start` (or `npm run dev`, which restarts it on every change): the API
 * on port 3000 (`PORT`), with the reaction and the projection running in the
 * same process. SIGTERM and SIGINT stop it without cutting a request off:
 * the server stops accepting connections and answers those in flight, then
 * Act stops the consumer and closes the store.
 */
import { dispose } from "@act-root/act";
import { serve } from "@hono/node-server";
import { buildApp } from "./app.js";
import { api, tokenAuth } from "./http.js";
import { openStore } from "./store.js";

const store = openStore();
await store.seed(); // creates the store's tables on the first run; harmless later
const app = buildApp(store);

// The development token is public (it is in this file): never in production.
if (!process.env.API_TOKEN && process.env.NODE_ENV === "production")
  throw new Error("API_TOKEN is not set: give the API a token of at least 16 characters");
const token = process.env.API_TOKEN || "dev-token-change-me";
const routes = api(app, tokenAuth(token));
const port = Number(process.env.PORT || 3000);
// This machine only, unless HOST says otherwise (HOST=0.0.0.0 in a container).
const server = serve({ fetch: routes.fetch, port, hostname: process.env.HOST || "127.0.0.1" });
app.start(); // runs the reaction and the projection as events are committed

dispose(async () => {
  const closed = new Promise<void>((done) => server.close(() => done()));
  await routes.close(); // answers the requests in flight, ends the event streams
  await closed;
});
console.log(`API on http://localhost:${port} (token: ${process.env.API_TOKEN ? "API_TOKEN" : token})`);
console.log(
  `try: curl -X POST -H "Authorization: Bearer ${process.env.API_TOKEN ? "$API_TOKEN" : token}" -H "Content-Type: application/json" -d '{"title":"Try Act"}' http://localhost:${port}/streams/TodoList/1/add`
);
