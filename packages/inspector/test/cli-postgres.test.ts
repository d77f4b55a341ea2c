// The command line against a real PostgreSQL (npm run test:postgres).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { bearer, signIn } from "./session.js";

describe("act-inspector's command line on PostgreSQL", () => {
  it("starts a read-only server on 127.0.0.1 and prints one URL without the connection string", async () => {
    const url = inject("pgUrl");
    const cli = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "--pg", url, "--schema", "inspector_cli"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "fatal" },
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        cli.once("exit", (code) => reject(new Error(`act-inspector exited (${code})`)));
        createInterface({ input: cli.stdout! }).once("line", resolve);
      });
      expect(line).toMatch(/^Act Inspector \(read-only\): http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+$/);
      expect(line).not.toContain(url);
      const printed = line.slice(line.indexOf("http"));
      const res = await fetch(`${new URL(printed).origin}/api/info`, { headers: bearer(await signIn(printed)) });
      expect(await res.json()).toMatchObject({
        mode: "store",
        operations: false,
        store: "postgres inspector_cli.events",
      });
    } finally {
      const exited = new Promise((resolve) => cli.once("exit", resolve));
      cli.kill("SIGTERM");
      await exited;
    }
  });
});
