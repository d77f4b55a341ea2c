/**
 * `npm run bench -w @act-root/act-http`: requests per second of an action
 * route of the package against a plain Hono handler that parses the body
 * and calls `app.do` itself (no authentication, limits, authorization or
 * problem documents) — the price of being safe by default. Both run on the
 * in-memory store, each request on its own stream, first in process
 * (`fetch(Request)`, no network) and then through a Node server with 16
 * requests in flight.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { app, api, TOKENS } from "../test/notes.js";

const plain = new Hono();
plain.post("/streams/Note/:id/Create", async (c) => {
  const snapshots = await app.do(
    "Create",
    { stream: `note-${c.req.param("id")}`, actor: { id: "user:alice", name: "Alice" } },
    await c.req.json()
  );
  const last = snapshots.at(-1)!;
  return c.json({ stream: `note-${c.req.param("id")}`, version: last.event?.version ?? -1, state: last.state });
});

const body = JSON.stringify({ title: "Groceries", body: "milk, eggs" });
const headers = { Authorization: `Bearer ${TOKENS.alice}`, "Content-Type": "application/json" };
let n = 0;

async function inProcess(name: string, fetch: (r: Request) => Response | Promise<Response>, count: number) {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const res = await fetch(
      new Request(`http://x/streams/Note/${name}-${++n}/Create`, { method: "POST", headers, body })
    );
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return Math.round(count / ((performance.now() - start) / 1000));
}

async function overHttp(name: string, fetchHandler: (r: Request) => Response | Promise<Response>, count: number) {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: fetchHandler, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        next++;
        const res = await fetch(`${url}/streams/Note/${name}-${++n}/Create`, { method: "POST", headers, body });
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
        await res.arrayBuffer();
      }
    })
  );
  const rate = Math.round(count / ((performance.now() - start) / 1000));
  await new Promise((done) => server.close(done));
  return rate;
}

const count = Number(process.env.COUNT ?? 5_000);
// A warm-up of each, then three alternating rounds; the best of each is printed.
await inProcess("warm-plain", plain.fetch, 500);
await inProcess("warm-act-http", api.fetch, 500);
const results = {
  plain: [] as number[],
  actHttp: [] as number[],
  plainHttp: [] as number[],
  actHttpHttp: [] as number[],
};
for (let round = 0; round < 3; round++) {
  results.plain.push(await inProcess("plain", plain.fetch, count));
  results.actHttp.push(await inProcess("act-http", api.fetch, count));
  results.plainHttp.push(await overHttp("plain-http", plain.fetch, count));
  results.actHttpHttp.push(await overHttp("act-http-http", api.fetch, count));
}
const best = (xs: number[]) => Math.max(...xs);
console.log(`in process:   plain Hono + app.do ${best(results.plain)} req/s, act-http ${best(results.actHttp)} req/s`);
console.log(
  `over HTTP/16: plain Hono + app.do ${best(results.plainHttp)} req/s, act-http ${best(results.actHttpHttp)} req/s`
);
