/**
 * The proof on the in-memory store: after `forget`, nothing the store holds
 * — its log, snapshots, indexes and keys, read from its internals rather
 * than through its API — carries the subject's personal data or key.
 */
import * as vitest from "vitest";
import { personalDataProof } from "@act-root/act/testing";
import { InMemoryStore } from "../../src/index.js";
import { databaseOf } from "../../src/stores/in-memory.js";

/** Maps and sets as arrays, so the whole database is one JSON text. */
const everything = (_: string, value: unknown) =>
  value instanceof Map ? [...value.entries()] : value instanceof Set ? [...value] : value;

const memory = new InMemoryStore();
personalDataProof(
  "InMemoryStore",
  { store: () => memory, dump: async () => JSON.stringify(databaseOf(memory), everything) },
  vitest
);
