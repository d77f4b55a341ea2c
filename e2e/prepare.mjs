// Makes sure `build/` holds a complete production build of the current
// sources before the e2e suite serves it: reuses a fresh build (e.g. the one
// `npm test` just made), otherwise runs `npm run build` once.
//
// A build counts as complete when build/sitemap.xml exists (the sitemap is
// written after every page rendered); it is fresh when that file is newer
// than every source the site is built from. E2E_SITE_DIR (another directory
// to serve) skips all of this; E2E_REBUILD=1 forces a build.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { siteBuildRunning } from "../scripts/site-build-running.mjs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const marker = join(root, "build", "sitemap.xml");

if (process.env.E2E_SITE_DIR) {
  console.log(`e2e: serving ${process.env.E2E_SITE_DIR} (E2E_SITE_DIR); no build`);
  process.exit(0);
}

const SKIP = new Set(["node_modules", "dist", "coverage", ".cache"]);

/** Newest modification time under the site's sources, with the file. */
function newestSource() {
  let newest = { time: 0, file: "" };
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) {
        if (SKIP.has(entry)) continue;
        visit(join(path, entry));
      }
    } else if (stat.mtimeMs > newest.time) {
      newest = { time: stat.mtimeMs, file: relative(root, path) };
    }
  };
  for (const entry of [
    "docusaurus.config.ts",
    "sidebars.ts",
    "sidebars-api.ts",
    "tsconfig.typedoc.json",
    "scripts/typedoc",
    "src",
    "static",
    "docs",
  ]) {
    visit(join(root, entry));
  }
  const packages = join(root, "packages");
  for (const name of existsSync(packages) ? readdirSync(packages) : []) {
    visit(join(packages, name, "src"));
    visit(join(packages, name, "package.json"));
  }
  return newest;
}

// Never start a second build while one runs: wait for it, then judge its result.
for (let waited = 0; siteBuildRunning(root); waited += 5) {
  if (waited === 0) console.log("e2e: a site build is running; waiting for it");
  if (waited > 900) throw new Error("e2e: a site build has been running for 15 minutes");
  await new Promise((done) => setTimeout(done, 5000));
}

const source = newestSource();
const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
if (process.env.E2E_REBUILD !== "1" && built > source.time) {
  console.log(`e2e: reusing build/ (built after the newest source, ${source.file})`);
  process.exit(0);
}
console.log(
  built ? `e2e: build/ is older than ${source.file}; rebuilding` : "e2e: no complete build in build/; building the site"
);
// The root `build` script (packages, then `docusaurus build`), or its steps.
const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts ?? {};
const result = scripts.build
  ? spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
  : spawnSync("sh", ["-c", "npm run build:packages && npx docusaurus build"], { cwd: root, stdio: "inherit" });
if (result.status !== 0 || !existsSync(marker)) {
  console.error("e2e: the site build failed");
  process.exit(result.status || 1);
}
