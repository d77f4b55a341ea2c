// `node runtimes/smoke.mjs`, `bun runtimes/smoke.mjs`, `deno run -A runtimes/smoke.mjs`:
// the built package (dist/, after `npm run build`) on a runtime, through its
// fetch handler only — the way Workers, Bun and Deno serve it. It checks one
// request of each kind and exits 1 with what differed.
import { act, state } from "@act-root/act";
import { z } from "zod";
import { bearerTokens, http, stream } from "../dist/index.js";

const Note = state("Note", z.object({ owner: z.string(), body: z.string() }))
  .init(() => ({ owner: "", body: "" }))
  .emits({ Written: z.object({ owner: z.string(), body: z.string() }) })
  .patch({ Written: ({ data }) => data })
  .on("Write", z.object({ body: z.string().max(100) }))
  .emit(({ body }, _, { actor }) => ["Written", { owner: actor.id, body }])
  .build();
const app = act().with(Note).build();
const token = "runtime-token-0123456789";
const api = http(app, {
  authenticate: bearerTokens([[token, { id: "user:ada", name: "Ada" }]]),
  actions: { Write: { authorize: async ({ actor, load }) => [actor.id, ""].includes((await load()).state.owner) } },
  streams: [stream(Note, { authorize: ({ actor, state }) => [actor.id, ""].includes(state.owner) })],
});

const failures = [];
const check = (what, ok) => {
  if (!ok) failures.push(what);
};
const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
const post = (body, headers = auth) =>
  api.fetch(new Request("http://x/streams/Note/n1/Write", { method: "POST", headers, body }));

const anonymous = await post('{"body":"x"}', { "Content-Type": "application/json" });
check("401 without credentials", anonymous.status === 401);
check("a problem document", anonymous.headers.get("content-type") === "application/problem+json");
check(
  "constructor is no token",
  (await post('{"body":"x"}', { ...auth, Authorization: "Bearer constructor" })).status === 401
);
const written = await post('{"body":"hello"}');
check("200 for an action", written.status === 200);
check('ETag "0"', written.headers.get("etag") === '"0"');
check("the state", (await written.json()).state?.body === "hello");
check("412 for a stale If-Match", (await post('{"body":"again"}', { ...auth, "If-Match": '"7"' })).status === 412);
check("413 for a huge body", (await post(JSON.stringify({ body: "x".repeat(100_000) }))).status === 413);
check("400 for a bad payload", (await post('{"body":7}')).status === 400);
const document = await (await api.fetch(new Request("http://x/openapi.json"))).json();
check("an OpenAPI 3.1 document", document.openapi === "3.1.0");
const events = await api.fetch(new Request("http://x/streams/Note/n1/events", { headers: auth }));
const reader = events.body.getReader();
const { value } = await reader.read();
check("the first event over SSE", new TextDecoder().decode(value).includes("event: Written"));
await api.close();
check("closed: event stream ended", (await reader.read()).done === true);

const runtime = globalThis.Bun
  ? `bun ${Bun.version}`
  : globalThis.Deno
    ? `deno ${Deno.version.deno}`
    : `node ${process.version}`;
if (failures.length) {
  console.error(`act-http on ${runtime}: FAILED ${failures.join("; ")}`);
  globalThis.process?.exit?.(1);
  globalThis.Deno?.exit(1);
} else console.log(`act-http on ${runtime}: all 12 checks passed`);
