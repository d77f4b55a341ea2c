/**
 * The whole app on a SQLite file of its own: the reaction and the projection
 * run to the end with `settle` from Act's testing kit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { settle } from "@act-root/act/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type App, buildApp, Stats } from "../src/app.js";
import { readOpenTasks } from "../src/open-tasks.js";
import { openStore } from "../src/store.js";

const actor = { id: "u-1", name: "Ada" };
let folder: string;
let file: string;
let app: App;

beforeEach(async () => {
  // A new file for every test: an empty log and an empty read model.
  folder = mkdtempSync(join(tmpdir(), "app-test-"));
  file = join(folder, "test.db");
  const store = openStore(file);
  await store.seed();
  app = buildApp(store);
});

afterEach(async () => {
  await app.store.dispose();
  rmSync(folder, { recursive: true, force: true });
});

it("counts completed tasks and keeps the open ones in the read model", async () => {
  const list = { stream: "list-1", actor };
  await app.do("add", list, { title: "Buy milk" });
  await app.do("add", list, { title: "Write the docs" });
  await app.do("complete", list, { id: "t1" });
  await settle(app); // runs the reaction and the projection until nothing is left to do

  expect((await app.load(Stats, "stats")).state.completed).toBe(1);
  expect(await readOpenTasks("list-1", file)).toEqual([{ list: "list-1", id: "t2", title: "Write the docs" }]);
});

it("empties the read model of a closed list", async () => {
  await app.do("add", { stream: "list-2", actor }, { title: "Call Bob" });
  await app.do("close", { stream: "list-2", actor }, {});
  await settle(app);
  expect(await readOpenTasks("list-2", file)).toEqual([]);
});
