import { describe, expect, it } from "vitest";
import { operationsSuite } from "../../act/test/operations.suite.js";
import { client, freshStores } from "./support.js";

const fresh = freshStores("operations");

operationsSuite("PostgresStore", () => fresh());

describe("lease renewal on PostgreSQL", () => {
  it("waits for a row lock (a registration updating the same row) instead of giving the lease up", async () => {
    const pg = await fresh("renewal");
    const [e] = await pg.commit({
      stream: "s",
      messages: [{ name: "A", data: {} }],
      meta: { correlation: "c", causation: {} },
    });
    await pg.lease([{ stream: "r", source: "s", by: "d", at: -1, retry: 0, head: e.id }], 0);
    const [granted] = await pg.lease([{ stream: "r", source: "s", by: "d", at: -1, retry: 0 }], 10_000);
    // Another connection holds the row, as correlation's registration does for a moment.
    const other = await client();
    try {
      await other.query("BEGIN");
      await other.query(`UPDATE public.renewal_watermarks SET head = head WHERE stream = 'r'`);
      const renewal = pg.lease([granted], 10_000);
      await new Promise((r) => setTimeout(r, 200));
      await other.query("COMMIT");
      expect(await renewal).toEqual([expect.objectContaining({ stream: "r", token: granted.token })]);
    } finally {
      await other.end();
    }
    expect(await pg.ack([{ ...granted, at: e.id }])).toHaveLength(1);
  });
});
