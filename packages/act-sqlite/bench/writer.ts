/**
 * A writer process of the benchmark: opens `FILE`, waits for "go", then runs
 * `WRITERS` concurrent loops of `PER_WRITER` sequential commits each (one
 * event per commit, each loop on a stream of its own, with the expected
 * version), and reports `{ commits, busy }` when done.
 */
import { StoreError } from "@act-root/act";
import { SqliteStore } from "../src/index.js";

const env = process.env;
const store = new SqliteStore({ filename: env.FILE! });
const writers = Number(env.WRITERS ?? 4);
const perWriter = Number(env.PER_WRITER ?? 500);
const meta = { correlation: "bench", causation: {} };

async function main() {
  await store.seed();
  process.send?.("ready");
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  let busy = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `w-${process.pid}-${w}`;
      let version = -1;
      for (let i = 0; i < perWriter; i++) {
        try {
          const [e] = await store.commit({
            stream,
            messages: [{ name: "Incremented", data: { by: 1 } }],
            meta,
            expectedVersion: version,
          });
          version = e.version;
        } catch (error) {
          if (!(error instanceof StoreError && error.retryable)) throw error;
          busy++;
          i--;
        }
      }
    })
  );
  await store.dispose();
  process.send?.({ commits: writers * perWriter, busy });
  process.disconnect?.();
}

void main();
