// @ts-check
// `npm run typecheck -w create-act-app` (after tsc over the command): the
// templates as the projects they make. Generates every variant — each store,
// with and without HTTP — into .variants/ (inside the repository, so the
// workspace's packages and types resolve as they would from an install) and
// runs the compiler over each. The end-to-end test (scripts/check-starter.mjs
// at the repository's root) installs and tests them from the packed tarballs.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { STORES } from "../lib/args.mjs";
import { generate } from "../lib/generate.mjs";
import { PACKAGE_DIR, versions } from "../lib/versions.mjs";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const ranges = versions();
let failed = 0;
for (const store of STORES)
  for (const http of [false, true]) {
    const variant = `${store}${http ? "-http" : ""}`;
    const directory = join(PACKAGE_DIR, ".variants", variant);
    rmSync(directory, { recursive: true, force: true });
    generate({ directory, name: `starter-${variant}`, store, http }, ranges);
    const run = spawnSync(process.execPath, [tsc, "-p", join(directory, "tsconfig.json")], { encoding: "utf8" });
    if (run.status === 0) console.log(`check-templates: ${variant}: tsc passed`);
    else {
      failed++;
      console.error(`check-templates: ${variant}: tsc failed\n${run.stdout}${run.stderr}`);
    }
  }
if (failed) process.exitCode = 1;
