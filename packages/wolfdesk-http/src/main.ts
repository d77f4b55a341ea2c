/**
 * `npm start -w @act-root/wolfdesk-http`: the API on port 3000 (PORT), the
 * events in WolfDesk's SQLite file (or PostgreSQL with DATABASE_URL), the
 * reactions running in the same process. SIGTERM (what an orchestrator
 * sends) and SIGINT stop it without cutting a request off.
 */
import { dispose } from "@act-root/act";
import { app, connect } from "@act-root/wolfdesk";
import { start } from "./server.js";
import { demoTokens } from "./tokens.js";

await connect();
const server = await start({ port: Number(process.env.PORT ?? 3000), authenticate: demoTokens });
app.start();
// The server closes first (requests in flight finish), then Act stops the consumer and the store.
dispose(() => server.close());
console.log(`WolfDesk API on ${server.url}`);
