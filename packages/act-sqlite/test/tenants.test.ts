/**
 * A SQLite file per tenant: the hostile isolation suite, and the file
 * created by `add` and deleted by `remove`.
 */
import { act, disposeAndExit } from "@act-root/act";
import { tenantConformance } from "@act-root/act/testing";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vitest from "vitest";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { state } from "@act-root/act";
import { sqliteTenants } from "../src/index.js";
import { tempFile } from "./support.js";

tenantConformance("SQLite, a file per tenant", () => sqliteTenants({ folder: dirname(tempFile()) }), vitest);

const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: ({ data }, s) => ({ count: s.count + data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit((data) => ["Incremented", data])
  .build();
const actor = { id: "u", name: "U" };

describe("a SQLite file per tenant", () => {
  afterEach(async () => {
    await disposeAndExit();
  });

  it("creates <folder>/<tenant>.db on add and deletes it, with its WAL files, on remove", async () => {
    const folder = dirname(tempFile());
    const tenants = act()
      .with(Counter)
      .buildTenants({ store: sqliteTenants({ folder }) });
    const acme = await tenants.add("acme");
    await acme.do("increment", { stream: "c", actor }, { by: 1 });
    const file = join(folder, "acme.db");
    expect(existsSync(file)).toBe(true);
    expect(await tenants.remove("acme")).toEqual({ tenant: "acme", erased: ["tables of the store", `file ${file}`] });
    for (const suffix of ["", "-wal", "-shm"]) expect(existsSync(`${file}${suffix}`)).toBe(false);
    await tenants.dispose();
  });

  it("refuses options without a folder, naming it", () => {
    expect(() => sqliteTenants({} as never)).toThrow(/folder/);
  });
});
