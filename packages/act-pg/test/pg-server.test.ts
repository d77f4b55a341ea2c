/**
 * The disposable server the tests start lets in only who has its password:
 * other local users and processes reach the port and the socket but cannot
 * log in; and it does not outlive the process that started it.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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

  it("stops, and its folder is removed, once the process that started it is killed with SIGKILL", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./fixtures/server-owner.ts", import.meta.url))],
      { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] }
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await vi.waitFor(() => expect(out, err).toMatch(/^\d+ \S+\n/), { timeout: 60_000, interval: 100 });
    const [port, dir] = out.trim().split(" ");
    const at = { host: "127.0.0.1", port: Number(port), user: "postgres", password: "x" };
    // Up: it answers (and refuses the wrong password).
    await expect(login(at)).rejects.toMatchObject({ code: "28P01" });
    child.kill("SIGKILL");
    await exited;
    await vi.waitFor(
      async () => {
        await expect(login(at)).rejects.toMatchObject({ code: "ECONNREFUSED" });
        expect(existsSync(dir!)).toBe(false);
      },
      { timeout: 20_000, interval: 200 }
    );
  }, 90_000);
});
