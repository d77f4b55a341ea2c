import { afterAll } from "vitest";
import { closeModelSuite } from "../../act/test/close.model.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

closeModelSuite("PostgreSQL", async () => {
  current ??= makeStore({ table: "close_model" });
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await current?.dispose();
});
