/**
 * The proof on SQLite: after `forget`, the database file and its WAL hold
 * no byte of the forgotten subject's personal data nor of its key — read
 * while the store is still open, right after the forget (which checkpoints
 * and truncates the WAL), and again after a VACUUM. `secure_delete` is what
 * zeroes the old cells; the test turns it off to show it is needed.
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
  // A long field after the email: SQLite writes a shorter row over the end of the old one, so the
  // old row's start — the email — is what would stay in the page's free space.
  const Profile = state("Profile", z.object({ email: z.string(), bio: z.string() }))
    .init(() => ({ email: "", bio: "" }))
    .emits({ Set: z.object({ email: z.string(), bio: z.string() }) })
    .patch({ Set: ({ data }) => data })
    .personal({ Set: { fields: ["email"] } })
    .on("set", z.object({ email: z.string(), bio: z.string() }))
    .emit((p) => ["Set", p])
    .snap(() => true)
    .build();
  const actor = { id: "u", name: "U" };

  it("keeps none of it after a VACUUM either, and needs secure_delete for that", async () => {
    const path = tempFile("vacuum.db");
    const store = new SqliteStore({ filename: path });
    await store.seed();
    const app = act().with(Profile).build({ store });
    await app.do("set", { stream: "p-1", actor }, { email: "vacuum-proof@example.org", bio: "b".repeat(300) });
    await app.forget("p-1");
    await store.backup(tempFile("copy.db")); // a VACUUM INTO reads every live page
    const raw = (await import("libsql")).default;
    const db = new raw(path);
    db.exec("VACUUM");
    db.close();
    expect(bytesOf(path).includes("vacuum-proof@example.org")).toBe(false);
    await store.dispose();

    // Without secure_delete, the emptied snapshot's old bytes stay in the file's free space.
    const loose = tempFile("loose.db");
    const other = new SqliteStore({ filename: loose });
    await other.seed();
    const careless = act().with(Profile).build({ store: other });
    await careless.do("set", { stream: "p-2", actor }, { email: "loose-proof@example.org", bio: "b".repeat(300) });
    const direct = new raw(loose);
    direct.exec("PRAGMA secure_delete = OFF; PRAGMA wal_checkpoint(TRUNCATE);");
    direct.exec(`UPDATE act_events SET data = '{"of":"[forgotten]","state":null}' WHERE name = '__snapshot__'`);
    direct.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    direct.close();
    expect(bytesOf(loose).includes("loose-proof@example.org")).toBe(true);
    await other.dispose();
  });
});
