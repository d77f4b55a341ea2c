// @ts-check
// npx vitest run --project site e2e/server.test.mjs — the browser tests' web
// server does not outlive the test run that started it. Playwright starts it
// through a shell, in a process group of its own, with a pipe as standard
// input: a run that is killed closes that pipe and nothing else, and a server
// left running would hold its port and make the next run fail to start.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test, vi } from "vitest";

const top = mkdtempSync(join(tmpdir(), "act-e2e-server-"));
afterAll(() => rmSync(top, { recursive: true, force: true }));

/** A TCP port nobody listens on right now. */
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

/** Resolves to the status of GET `path`, or to the error's code when nothing answers. */
const get = (port, path) =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("error", (error) => resolve(/** @type {NodeJS.ErrnoException} */ (error).code));
    req.end();
  });

test("stops, and removes its copy of the site, once the pipe it was given as standard input closes", async () => {
  mkdirSync(join(top, "site"));
  writeFileSync(join(top, "site", "index.html"), "<!doctype html><title>home</title>");
  const port = await freePort();
  const server = fileURLToPath(new URL("./server.mjs", import.meta.url));
  const child = spawn("sh", ["-c", `node "${server}" --port ${port} --root "${join(top, "site")}" --snapshot`], {
    stdio: ["pipe", "pipe", "inherit"],
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  try {
    await vi.waitFor(() => expect(out).toMatch(/copied to (\S+)\)/), { timeout: 20_000, interval: 50 });
    const copy = /copied to (\S+)\)/.exec(out)?.[1] ?? "";
    expect(existsSync(copy)).toBe(true);
    expect(await get(port, "/act-root/")).toBe(200);
    // What a killed Playwright leaves: the shell and the server, and the pipe's far end closed.
    child.stdin.end();
    await vi.waitFor(async () => expect(await get(port, "/act-root/")).toBe("ECONNREFUSED"), {
      timeout: 10_000,
      interval: 100,
    });
    await vi.waitFor(() => expect(existsSync(copy)).toBe(false), { timeout: 5_000, interval: 50 });
  } finally {
    try {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    } catch {
      // already gone
    }
  }
});
