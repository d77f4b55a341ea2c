/**
 * Shutdown under load: SIGTERM reaches a process with actions and a drain in
 * flight. Whatever the app acknowledged must be in the database, and whatever
 * it refused must say why — an action is never "committed" into a store that
 * is gone.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { connectionString, makeStore, sql } from "./support.js";

const script = fileURLToPath(new URL("./fixtures/shutdown-writer.ts", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));
const TABLE = "shutdown";

let pgStore: PostgresStore;
beforeAll(async () => {
  pgStore = makeStore({ table: TABLE });
  await pgStore.drop();
  await pgStore.seed();
});
afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
});

describe("SIGTERM with actions and a drain in flight", () => {
  it("loses no acknowledged action and refuses the rest with an error that says the store is disposed", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
        DATABASE_URL: connectionString() ?? "",
        TABLE,
        NODE_ENV: "production",
        LOG_LEVEL: "fatal",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // Let it get busy: writes and reactions both under way.
    const deadline = Date.now() + 30_000;
    while (!((out.match(/^ok w-/gm)?.length ?? 0) > 40 && /^ok audit-/m.test(out)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    const code = await exited;
    expect(code, err).toBe(0);

    const lines = out.split("\n").filter(Boolean);
    const acknowledged = lines.filter((l) => l.startsWith("ok ")).map((l) => l.split(" "));
    const refused = lines.filter((l) => l.startsWith("err "));
    expect(acknowledged.length).toBeGreaterThan(40);
    const rows = await sql<{ id: string; stream: string; version: number }>(
      `SELECT id, stream, version FROM "${TABLE}"`
    );
    const stored = new Set(rows.map((r) => `${r.stream} ${r.version} ${r.id}`));
    const lost = acknowledged
      .map(([, stream, version, id]) => `${stream} ${version} ${id}`)
      .filter((k) => !stored.has(k));
    expect(lost).toEqual([]);
    for (const line of refused) expect(line).toMatch(/disposed/);
  }, 60_000);
});
