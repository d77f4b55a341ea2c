/**
 * The ticket list on a SQLite file: the projection writes a table of the
 * store's file in the transaction that moves its position, and
 * `listTickets` reads it through a connection of its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { disposeAndExit } from "@act-root/act";
import { afterAll, beforeAll, expect, it } from "vitest";
import { app, connect, listTickets, TicketList } from "../src/index.js";
import { by, carla, newTicket } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "wolfdesk-list-"));
const env = { WOLFDESK_DB: join(dir, "desk.db") };

beforeAll(async () => {
  expect(await connect(env)).toBe("sqlite");
});
afterAll(async () => {
  await disposeAndExit("EXIT"); // NODE_ENV=test: closes the file, does not exit
  rmSync(dir, { recursive: true, force: true });
});

it("keeps the ticket list in a table of the store's file, readable right after a write", async () => {
  expect(await listTickets(env)).toEqual([]); // before the projection first ran
  app.start();
  try {
    const t = newTicket();
    const snapshots = await app.do("OpenTicket", by(carla, t), { title: "Scanner", message: "Offline" });
    await app.projected(TicketList, snapshots);
    const rows = await listTickets(env);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: t, title: "Scanner", status: "open", priority: "normal", customer: carla.id });
  } finally {
    await app.stop();
  }
});
