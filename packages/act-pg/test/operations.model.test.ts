import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { operationsModelSuite } from "../../act/test/operations.model.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

operationsModelSuite("PostgreSQL", async () => {
  await disposeAndExit();
  current = makeStore({ table: "operations_model" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
