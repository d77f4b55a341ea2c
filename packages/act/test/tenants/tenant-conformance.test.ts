import * as vitest from "vitest";
import { InMemoryStore } from "../../src/index.js";
import { tenantConformance } from "../../src/testing/index.js";

tenantConformance("in-memory store per tenant", () => ({ store: () => new InMemoryStore() }), vitest);
