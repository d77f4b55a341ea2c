/**
 * A SQLite file per tenant at 1, 100 and 1,000 tenants (`npm run bench`; see
 * `packages/act/bench/tenants.ts` for what each figure is). Files in a
 * temporary folder, the store's defaults (`synchronous: "FULL"`).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sqliteTenants } from "../src/index.js";
import { child, openFiles, scale } from "../../act/bench/tenants.js";

const folder = process.env.TENANTS_FOLDER ?? "";
const probe = { strategy: () => sqliteTenants({ folder }), opened: openFiles };

if (!(await child(probe))) {
  const dir = mkdtempSync(join(tmpdir(), "act-sqlite-tenants-"));
  const counts = (process.env.TENANTS ?? "1,100,1000").split(",").map(Number);
  try {
    await scale(
      "SQLite, a file per tenant (synchronous FULL)",
      fileURLToPath(import.meta.url),
      { TENANTS_FOLDER: dir },
      counts,
      async () => {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      },
      "file descriptors",
      Number(process.env.TENANTS_BACKLOG ?? 100_000)
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
