import * as vitest from "vitest";
import { afterAll } from "vitest";
import { storeConformance } from "@act-root/act/testing";
import { makeStore } from "./support.js";

// The core's store conformance suite, as users import it, against PostgreSQL.
storeConformance("PostgresStore", () => makeStore({ table: "conformance" }), vitest);

afterAll(async () => {
  // The suite disposes its store; remove its tables too (matters on a shared DATABASE_URL).
  const cleanup = makeStore({ table: "conformance" });
  await cleanup.drop();
  await cleanup.dispose();
});
