import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@act-root/act-sqlite";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../src/server/args.js";

describe("act-inspector's command line", () => {
  it("reads the database, table and flags", () => {
    expect(
      parseArgs(["--pg", "postgres://x", "--schema", "s", "--table", "t", "--port", "4400", "--operations"])
    ).toEqual({
      pg: "postgres://x",
      schema: "s",
      table: "t",
      port: 4400,
      operations: true,
      help: false,
    });
    expect(parseArgs([], { ACT_INSPECTOR_PG: "postgres://env" })).toMatchObject({
      pg: "postgres://env",
      operations: false,
    });
  });

  it("says what is wrong", () => {
    expect(() => parseArgs([], {})).toThrow("give the database with --pg");
    expect(parseArgs(["--sqlite", "f.db"], { ACT_INSPECTOR_PG: "postgres://env" }).pg).toBeUndefined();
    expect(() => parseArgs(["--pg"], {})).toThrow("--pg needs a value");
    expect(() => parseArgs(["--pg", "x", "--port", "http"], {})).toThrow("--port must be a port number");
    expect(() => parseArgs(["--pg", "x", "--verbose"], {})).toThrow("unknown option --verbose");
    expect(() => parseArgs(["--sqlite", "f.db", "--pg", "x"], {})).toThrow("either --pg or --sqlite");
    expect(parseArgs(["--sqlite", "f.db"], { ACT_INSPECTOR_PG: "postgres://env" })).toMatchObject({ sqlite: "f.db" });
  });
});

describe("act-inspector's command line, run", () => {
  it("says in one line that --port is in use, and exits with 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inspector-cli-"));
    const file = join(dir, "events.db");
    const seeded = new SqliteStore({ filename: file });
    await seeded.seed();
    await seeded.dispose();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const cli = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "--sqlite", file, "--port", String(port)], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, LOG_LEVEL: "fatal" },
      });
      let stderr = "";
      cli.stderr!.on("data", (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => cli.once("exit", resolve));
      expect(code).toBe(2);
      expect(stderr.trim()).toBe(
        `act-inspector: port ${port} is already in use on 127.0.0.1: choose another with --port, or leave --port out for a free one`
      );
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
