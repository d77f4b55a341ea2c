/**
 * The API, called the way a runtime calls it — `fetch(Request)` — on an
 * in-memory store (the OpenTasks projection is not exercised here: its
 * handlers need the store's database).
 */
import { InMemoryStore } from "@act-root/act";
import { expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { api, tokenAuth } from "../src/http.js";

const token = "test-token-0123456789";
const routes = api(buildApp(new InMemoryStore()), tokenAuth(token));
const call = (path: string, init: RequestInit = {}, auth = `Bearer ${token}`) =>
  routes.fetch(
    new Request(`http://localhost${path}`, {
      ...init,
      headers: { Authorization: auth, "Content-Type": "application/json" },
    })
  );

it("adds a task, and answers the list's state with its version", async () => {
  const added = await call("/streams/TodoList/1/add", { method: "POST", body: JSON.stringify({ title: "Try Act" }) });
  expect(added.status).toBe(200);
  const list = await call("/streams/TodoList/1");
  expect(list.headers.get("ETag")).toBe('"0"');
  expect(await list.json()).toMatchObject({
    stream: "list-1",
    version: 0,
    state: { tasks: { t1: { title: "Try Act", done: false } } },
  });
});

it("refuses a caller without the token, and a payload its schema refuses", async () => {
  expect((await call("/streams/TodoList/2", {}, "Bearer wrong-token-0123456789")).status).toBe(401);
  const bad = await call("/streams/TodoList/2/add", { method: "POST", body: JSON.stringify({ title: "" }) });
  expect(bad.status).toBe(400);
  expect((await bad.json()).code).toBe("ERR_VALIDATION");
});

it("answers 422 when an invariant refuses the action", async () => {
  await call("/streams/TodoList/3/close", { method: "POST", body: "{}" });
  const late = await call("/streams/TodoList/3/add", { method: "POST", body: JSON.stringify({ title: "Too late" }) });
  expect(late.status).toBe(422);
  expect(await late.json()).toMatchObject({ code: "ERR_INVARIANT", detail: "The list must be open" });
});
