// Builds the documentation site (`docusaurus build`) and keeps its output in
// .cache/site-build.log, so scripts/site.test.mjs can hold the line the
// config deliberately does not: the config lets broken links and anchors only
// *warn* (a generated API page must not block a release), and the test fails
// if the build printed any such warning.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const logFile = join(root, ".cache", "site-build.log");
const started = Date.now();

const child = spawn(process.execPath, [join(root, "node_modules/@docusaurus/core/bin/docusaurus.mjs"), "build"], {
  cwd: root,
  env: { ...process.env, FORCE_COLOR: "0", NO_UPDATE_NOTIFIER: "1" },
  stdio: ["ignore", "pipe", "pipe"],
});

let log = "";
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    log += chunk;
    (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
  });
}

child.on("close", (code) => {
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, log);
  console.log(`site build: exit ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s; log in ${logFile}`);
  process.exit(code ?? 1);
});
