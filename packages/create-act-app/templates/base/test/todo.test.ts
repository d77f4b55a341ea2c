/**
 * The to-do list's rules, on an in-memory store: actions are function calls,
 * and every refusal is an error with the facts as fields.
 */
import { act, InMemoryStore, InvariantError, ValidationError } from "@act-root/act";
import { describe, expect, it } from "vitest";
import { TodoList } from "../src/todo.js";

const actor = { id: "u-1", name: "Ada" };
/** A fresh app on a store of its own for each test: nothing leaks between tests. */
const newApp = () => act().with(TodoList).build({ store: new InMemoryStore() });

describe("TodoList", () => {
  it("adds and completes tasks", async () => {
    const app = newApp();
    await app.do("add", { stream: "list-1", actor }, { title: "Buy milk" });
    const [snapshot] = await app.do("complete", { stream: "list-1", actor }, { id: "t1" });
    expect(snapshot.state.tasks).toEqual({ t1: { title: "Buy milk", done: true } });
    expect((await app.queryArray({ stream: "list-1" })).map((event) => event.name)).toEqual([
      "TaskAdded",
      "TaskCompleted",
    ]);
  });

  it("commits nothing for a task that is unknown or already done", async () => {
    const app = newApp();
    await app.do("add", { stream: "list-1", actor }, { title: "Buy milk" });
    await app.do("complete", { stream: "list-1", actor }, { id: "t1" });
    await app.do("complete", { stream: "list-1", actor }, { id: "t1" });
    await app.do("complete", { stream: "list-1", actor }, { id: "t9" });
    expect(await app.queryArray({ stream: "list-1" })).toHaveLength(2);
  });

  it("refuses to add to a closed list", async () => {
    const app = newApp();
    await app.do("close", { stream: "list-1", actor }, {});
    const error = await app.do("add", { stream: "list-1", actor }, { title: "Too late" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvariantError);
    expect(error).toMatchObject({ action: "add", description: "The list must be open" });
  });

  it("refuses a task without a title, before committing anything", async () => {
    const app = newApp();
    await expect(app.do("add", { stream: "list-1", actor }, { title: "" })).rejects.toBeInstanceOf(ValidationError);
    expect(await app.queryArray({ stream: "list-1" })).toEqual([]);
  });
});
