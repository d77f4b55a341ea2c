// @ts-check
// The e2e suite's web server: the shared Pages-like static server
// (scripts/pages-server.mjs) on 127.0.0.1, started by playwright.config.ts.
// Usage: node e2e/server.mjs [--port 4317] [--root build] [--base /act-root/] [--snapshot]
// --snapshot serves a private copy of the root (removed on exit), so a site
// build started meanwhile cannot change the files under a running test.
import { cpSync, fstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPagesServer } from "../scripts/pages-server.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce(
    (pairs, arg, i, all) => {
      if (arg.startsWith("--")) pairs.push([arg.slice(2), all[i + 1]]);
      return pairs;
    },
    /** @type {[string, string][]} */ ([])
  )
);
const snapshot = process.argv.includes("--snapshot");
const port = Number(args.port ?? process.env.E2E_PORT ?? 4317);
const source = resolve(args.root && args.root !== "--snapshot" ? args.root : join(here, "..", "build"));
const copy = snapshot ? mkdtempSync(join(tmpdir(), "act-e2e-site-")) : undefined;
if (copy) {
  cpSync(source, copy, { recursive: true });
  process.on("exit", () => rmSync(copy, { recursive: true, force: true }));
}
const base = args.base && args.base !== "--snapshot" ? args.base : "/act-root/";
const server = createPagesServer({ root: copy ?? source, base });
// The tests' HTTP clients keep connections open and reuse them. With Node's
// default of 5 s, the server may close an idle connection at the moment a
// busy test sends its next request on it, which the test sees as ECONNRESET;
// a minute outlasts any pause in a test.
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

server.listen(port, "127.0.0.1", () => {
  console.log(`Serving ${source}${copy ? ` (copied to ${copy})` : ""} at http://127.0.0.1:${port}${base}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, stop);
// Playwright starts this server in a process group of its own, so a test run
// that is stopped (one step of `npm test` failed, or a SIGKILL) may never
// pass the signal on; the server would keep its port and make the next run
// fail to start. It stops when the process that started it is gone: its
// parent changes, or — started through a shell, which outlives Playwright —
// the pipe Playwright gave it as standard input is closed.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 1000).unref();
const input = fstatSync(0);
// A pipe or a socket pair (what Node's `spawn` gives): a terminal or /dev/null stays open or ends at once.
if (input.isFIFO() || input.isSocket()) {
  process.stdin.on("end", stop);
  process.stdin.resume();
}
