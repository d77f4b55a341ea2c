import { afterAll } from "vitest";
import { storeConformance } from "../../act/test/store.conformance.js";
import { makeStore } from "./support.js";

// The core's store conformance suite, unchanged, against PostgreSQL.
storeConformance("PostgresStore", () => makeStore({ table: "conformance" }));

afterAll(async () => {
  // The suite disposes its store; remove its tables too (matters on a shared DATABASE_URL).
  const cleanup = makeStore({ table: "conformance" });
  await cleanup.drop();
  await cleanup.dispose();
});
