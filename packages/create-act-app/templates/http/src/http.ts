/**
 * The app over HTTP, with `@act-root/act-http` on Hono:
 *
 * - `POST /streams/TodoList/{id}/add` (and `/complete`, `/close`): the
 *   list's actions, the body their payload, on the stream `list-{id}`;
 * - `GET /streams/TodoList/{id}`: the list's state, its version as the ETag
 *   (send it back as If-Match to act only on the version you saw);
 * - `GET /reads/open-tasks?list={id}`: the read model;
 * - `GET /openapi.json`: the OpenAPI 3.1 document.
 *
 * Every route needs an `authorize` rule: here every caller with a token may
 * use every list. Write your own rules there (who owns a list, who may
 * close it); the state's invariants still run on every action.
 */
import { type Authenticate, bearerTokens, http, read, stream } from "@act-root/act-http";
import { z } from "zod";
import type { App } from "./app.js";
import { readOpenTasks } from "./open-tasks.js";
import { TodoList } from "./todo.js";

/**
 * Who calls: one fixed token (`API_TOKEN`, at least 16 characters), for
 * trying the API out. A real app verifies its users' sessions or JWTs here.
 */
export function tokenAuth(token: string): Authenticate {
  return bearerTokens([[token, { id: "user:dev", name: "Developer" }]]);
}

const anyCaller = () => true;

/** The routes of `app`, with `authenticate` finding who calls. */
export function api(app: App, authenticate: Authenticate) {
  return http(app, {
    authenticate,
    actions: {
      add: { authorize: anyCaller, summary: "Adds a task to a list" },
      complete: { authorize: anyCaller, summary: "Completes a task" },
      close: { authorize: anyCaller, summary: "Closes a list: no more tasks can be added or completed" },
    },
    streams: [stream(TodoList, { stream: (id) => `list-${id}`, authorize: anyCaller })],
    reads: {
      "open-tasks": read({
        query: z.object({ list: z.string().min(1) }),
        answer: z.array(z.object({ id: z.string(), title: z.string() })),
        authorize: anyCaller,
        read: ({ list }) => readOpenTasks(`list-${list}`),
        summary: "The open tasks of a list, from the OpenTasks projection",
      }),
    },
    info: { title: "To-do lists", version: "0.1.0" },
  });
}
