import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { deployModelSuite } from "../../act/test/deploy.model.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

deployModelSuite("PostgreSQL", async () => {
  await disposeAndExit();
  current = makeStore({ table: "deploy_model" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
