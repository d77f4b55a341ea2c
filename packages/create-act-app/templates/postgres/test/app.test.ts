/**
 * The whole app on the PostgreSQL database at DATABASE_URL — which these
 * tests empty: point it at a database of its own. The reaction and the
 * projection run to the end with `settle` from Act's testing kit.
 */
import { settle } from "@act-root/act/testing";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { type App, buildApp, Stats } from "../src/app.js";
import { dropOpenTasks, readOpenTasks } from "../src/open-tasks.js";
import { openStore } from "../src/store.js";

const actor = { id: "u-1", name: "Ada" };
const store = openStore();
let app: App;

beforeAll(() => {
  if (!process.env.DATABASE_URL)
    throw new Error("DATABASE_URL is not set: these tests need a PostgreSQL database they may empty (see README.md)");
});

beforeEach(async () => {
  // An empty log and an empty read model for every test.
  await store.drop();
  await store.seed();
  await dropOpenTasks();
  app = buildApp(store);
});

afterAll(() => store.dispose());

it("counts completed tasks and keeps the open ones in the read model", async () => {
  const list = { stream: "list-1", actor };
  await app.do("add", list, { title: "Buy milk" });
  await app.do("add", list, { title: "Write the docs" });
  await app.do("complete", list, { id: "t1" });
  await settle(app); // runs the reaction and the projection until nothing is left to do

  expect((await app.load(Stats, "stats")).state.completed).toBe(1);
  expect(await readOpenTasks("list-1")).toEqual([{ list: "list-1", id: "t2", title: "Write the docs" }]);
});

it("empties the read model of a closed list", async () => {
  await app.do("add", { stream: "list-2", actor }, { title: "Call Bob" });
  await app.do("close", { stream: "list-2", actor }, {});
  await settle(app);
  expect(await readOpenTasks("list-2")).toEqual([]);
});
