import { describe, expect, it } from "vitest";
import { type PgTools, postgresForTests } from "./postgres-env.js";

const noBinaries = () => {
  throw new Error("No PostgreSQL server binaries found (initdb, pg_ctl).");
};
const started = { url: "postgres://postgres:pw@127.0.0.1:5999/postgres", stop: async () => {} };
const tools = (overrides: Partial<PgTools>) => async (): Promise<PgTools> => ({
  findBinDir: () => "/usr/lib/postgresql/15/bin",
  startServer: async () => started,
  ...overrides,
});

describe("the PostgreSQL the WolfDesk Postgres tests use", () => {
  it("is the one the environment names, without starting a server", async () => {
    const picked = await postgresForTests(
      { DATABASE_URL: "postgres://db/app" },
      "desk",
      tools({ findBinDir: noBinaries })
    );
    expect(picked).toEqual({ env: { DATABASE_URL: "postgres://db/app", WOLFDESK_SCHEMA: "desk" } });
  });

  it("is a disposable server otherwise, on the tests' schema", async () => {
    expect(await postgresForTests({}, "desk", tools({}))).toEqual({
      env: { DATABASE_URL: started.url, WOLFDESK_SCHEMA: "desk" },
      server: started,
    });
  });

  it("skips the tests only when the machine has no server binaries, and says so", async () => {
    const picked = await postgresForTests({}, "desk", tools({ findBinDir: noBinaries }));
    expect(picked).toEqual({ skipped: expect.stringMatching(/^no PostgreSQL server binaries: No PostgreSQL/) });
  });

  it("fails when the binaries are there but the server does not start", async () => {
    const broken = tools({
      startServer: async () => {
        throw new Error("pg_ctl start failed (1): could not bind IPv4 address");
      },
    });
    await expect(postgresForTests({}, "desk", broken)).rejects.toThrow(/pg_ctl start failed/);
  });
});
