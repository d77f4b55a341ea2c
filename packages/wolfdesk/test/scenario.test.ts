import { store } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import { describe, expect, it } from "vitest";
import { app, connect, postgresOptions, run, sqliteFile, until, wantsPostgres } from "../src/index.js";

describe("store selection", () => {
  it("uses Postgres only when the environment names a database", () => {
    expect(wantsPostgres({})).toBe(false);
    expect(wantsPostgres({ DATABASE_URL: "postgres://localhost/app" })).toBe(true);
    expect(wantsPostgres({ PGHOST: "db" })).toBe(true);
    expect(wantsPostgres({ PGDATABASE: "app" })).toBe(true);
  });

  it("reads the connection settings from the environment", () => {
    expect(postgresOptions({ PGHOST: "db", PGPORT: "6543", PGUSER: "me" })).toEqual({
      host: "db",
      port: 6543,
      user: "me",
      schema: "wolfdesk",
    });
    expect(postgresOptions({ DATABASE_URL: "postgres://x/y", WOLFDESK_SCHEMA: "desk" })).toEqual({
      connectionString: "postgres://x/y",
      schema: "desk",
    });
  });

  it("keeps the events in a SQLite file without a database, wolfdesk.db unless WOLFDESK_DB names one", async () => {
    expect(sqliteFile({})).toBe("wolfdesk.db");
    expect(sqliteFile({ WOLFDESK_DB: "/var/lib/desk.db" })).toBe("/var/lib/desk.db");
    // A private in-memory database: the test leaves no file behind.
    expect(await connect({ WOLFDESK_DB: ":memory:" })).toBe("sqlite");
    expect(store()).toBeInstanceOf(SqliteStore);
  });
});

describe("the command-line story", () => {
  it("runs from open to close on the running consumer, with the refusals it stages", async () => {
    const lines: string[] = [];
    app.start();
    const state = await run((line) => lines.push(line), "ticket-story").finally(() => app.stop());
    expect(state).toMatchObject({ status: "closed", escalated: true, resolution: "Replaced the printer" });
    expect(lines.filter((l) => l.startsWith("✗"))).toEqual([
      "✗ Carla tries to resolve her own ticket: Only the assigned agent resolves (or a supervisor, once escalated)",
      "✗ Carla writes after the resolution: Only open tickets accept messages",
    ]);
    // The assignment names the event it reacted to, by its id in the log.
    const [opened] = await app.queryArray({ stream: "ticket-story", names: ["TicketOpened"] });
    expect(lines.some((l) => l.includes("TicketAssigned") && l.includes(`← TicketOpened #${opened.id}`))).toBe(true);
  });
});

describe("waiting for reactions", () => {
  it("says what it waited for, and that the consumer may not be running", async () => {
    await expect(until("the desk to assign the ticket", async () => false, 30)).rejects.toThrow(
      /Gave up waiting for the desk to assign the ticket after 30 ms: is the consumer running/
    );
  });

  it("returns what the check found", async () => {
    let calls = 0;
    expect(await until("a third look", async () => ++calls === 3 && calls)).toBe(3);
  });
});
