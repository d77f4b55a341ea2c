// Whether a `docusaurus build` of this checkout is running: two builds of one
// checkout fight over build/ and the bundler cache, so the e2e suite and
// bench:site wait for one instead of starting another. Builds in other
// checkouts (other working folders) don't count.
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";

/** @param {string} root - the checkout's folder */
export function siteBuildRunning(root) {
  let pids;
  try {
    pids = execFileSync("pgrep", ["-f", "docusaurus(\\.mjs)? build"], { encoding: "utf8" }).trim().split("\n");
  } catch {
    return false; // pgrep exits 1 when nothing matches
  }
  const here = realpathSync(root);
  return pids.some((pid) => {
    try {
      return realpathSync(`/proc/${pid}/cwd`) === here;
    } catch {
      return false;
    }
  });
}
