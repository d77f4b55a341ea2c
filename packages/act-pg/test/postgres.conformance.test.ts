import { storeConformance } from "../../act/test/store.conformance.js";
import { makeStore } from "./support.js";

// The core's store conformance suite, unchanged, against PostgreSQL.
storeConformance("PostgresStore", () => makeStore({ table: "conformance" }));
