/**
 * The proof on SQLite: after `forget`, the database file and its WAL hold
 * no byte of the forgotten subject's personal data nor of its key — read
 * while the store is still open, right after the forget (which checkpoints
 * and truncates the WAL), and again after a VACUUM. `secure_delete` is what
 * zeroes the old cells; a test turns it off to show it is needed.
 */
import { existsSync, readFileSync } from "node:fs";
import * as vitest from "vitest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { personalDataProof } from "@act-root/act/testing";
import { act, state } from "@act-root/act";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

/** The file and its WAL, as a copy or a backup of the directory would take them. */
const bytesOf = (file: string) =>
  Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));

const file = tempFile("proof.db");
personalDataProof(
  "SqliteStore (file)",
  { store: () => new SqliteStore({ filename: file }), dump: async () => bytesOf(file) },
  vitest
);

describe("SqliteStore and personal data", () => {
  const Profile = state("Profile", z.object({ email: z.string() }))
    .init(() => ({ email: "" }))
    .emits({ Set: z.object({ email: z.string() }) })
    .patch({ Set: ({ data }) => data })
    .personal({ Set: { fields: ["email"] } })
    .on("set", z.object({ email: z.string() }))
    .emit((p) => ["Set", p])
    .snap(() => true)
    .build();
  const actor = { id: "u", name: "U" };
  const Raw = async () => (await import("libsql")).default;

  it("keeps none of it after a VACUUM either", async () => {
    const path = tempFile("vacuum.db");
    const store = new SqliteStore({ filename: path });
    await store.seed();
    await act().with(Profile).build({ store }).do("set", { stream: "p-1", actor }, { email: "vacuum@example.org" });
    const [key] = await store.keys.read([{ subject: "p-1", version: 1 }]);
    await act().with(Profile).build({ store }).forget("p-1");
    const db = new (await Raw())(path);
    db.exec("VACUUM");
    db.close();
    for (const secret of ["vacuum@example.org", key.key!.slice(0, 16)])
      expect(bytesOf(path).includes(secret)).toBe(false);
    await store.dispose();
  });

  it("needs secure_delete: without it, a destroyed key's bytes stay in the page's free space", async () => {
    const path = tempFile("loose.db");
    const store = new SqliteStore({ filename: path });
    await store.seed();
    await act().with(Profile).build({ store }).do("set", { stream: "p-2", actor }, { email: "loose@example.org" });
    const [key] = await store.keys.read([{ subject: "p-2", version: 1 }]);
    await store.dispose();
    // What forget runs, on a connection without secure_delete.
    const db = new (await Raw())(path);
    db.exec("PRAGMA secure_delete = OFF");
    db.prepare("UPDATE act_subject_keys SET key = NULL WHERE subject = ?").run("p-2");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    expect(bytesOf(path).includes(key.key!.slice(0, 16))).toBe(true);
  });
});
