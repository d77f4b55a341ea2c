/**
 * The disposable server the tests start lets in only who has its password:
 * other local users and processes reach the port and the socket but cannot
 * log in.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgServer, startServer } from "../tools/pg-server.js";

let server: PgServer;

beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** Connects, runs one query and disconnects; resolves to the role connected as. */
async function login(config: pg.ClientConfig): Promise<string> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query<{ user: string }>("SELECT current_user AS user")).rows[0]!.user;
  } finally {
    await client.end();
  }
}

describe("the disposable PostgreSQL server", () => {
  it("lets in a client with its URL, which carries the password", async () => {
    expect(server.url).toContain(`:${server.password}@`);
    expect(await login({ connectionString: server.url })).toBe("postgres");
  });

  // TCP on 127.0.0.1, and the Unix socket in the server's folder.
  const where = () => [
    { host: "127.0.0.1", port: server.port },
    { host: server.dir, port: server.port },
  ];

  it("refuses a wrong password, over TCP and over its socket", async () => {
    for (const at of where())
      await expect(login({ ...at, user: "postgres", password: "not-the-password" }), at.host).rejects.toMatchObject({
        code: "28P01", // invalid_password
      });
  });

  it("asks every client for a password: one without gets no session, over TCP and over its socket", async () => {
    for (const at of where()) await expect(login({ ...at, user: "postgres" }), at.host).rejects.toThrow(/password/i);
  });

  it("gives each server its own password", async () => {
    const other = await startServer();
    try {
      expect(other.password).not.toBe(server.password);
      await expect(
        login({ host: "127.0.0.1", port: other.port, user: "postgres", password: server.password })
      ).rejects.toMatchObject({ code: "28P01" });
    } finally {
      await other.stop();
    }
  }, 60_000);
});
