import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { discoverySuite } from "../../act/test/reactions/discovery.suite.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

// The core's scenarios of discovery shared through the store, on PostgreSQL:
// positions in the <table>_discovery table, read after them visibility-safe.
discoverySuite("PostgresStore", async () => {
  await disposeAndExit();
  current = makeStore({ table: "discovery" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
