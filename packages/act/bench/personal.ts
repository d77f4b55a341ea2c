/**
 * The cost of personal fields (`state().personal()`): commits and loads of
 * one 5,000-event stream whose events carry an email and a name, marked
 * personal or not. Marked, each commit seals both fields as one value
 * (AES-GCM, a write key reused for 30 s) and each load opens 5,000 values,
 * a page of 1,000 at a time, after one read of the subject's keys. Used by
 * the benchmarks of the in-memory store and of SqliteStore, with the store
 * they pass.
 */
import { z } from "zod";
import { act, state, type Store } from "../src/index.js";

const actor = { id: "bench", name: "bench" };
const EVENTS = 5_000;
const LOADS = 20;

const profile = (personal: boolean) => {
  const builder = state("Profile", z.object({ email: z.string(), name: z.string(), count: z.number() }))
    .init(() => ({ email: "", name: "", count: 0 }))
    .emits({ Updated: z.object({ email: z.string(), name: z.string() }) })
    .patch({ Updated: ({ data }, s) => ({ email: data.email, name: data.name, count: s.count + 1 }) });
  const marked = personal ? builder.personal({ Updated: { fields: ["email", "name"] } }) : builder;
  return marked
    .on("update", z.object({ email: z.string(), name: z.string() }))
    .emit((p) => ["Updated", p])
    .build();
};

async function seconds(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
}

/**
 * Commits/s and loads/s of a 5,000-event stream, without and with personal
 * fields, on the stores `fresh` returns (one per measurement, seeded).
 */
export async function benchPersonal(fresh: () => Promise<Store>): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  for (const personal of [false, true]) {
    const Profile = profile(personal);
    const app = act()
      .with(Profile)
      .build({ store: await fresh() });
    const label = personal ? "personal fields" : "plain fields";
    const stream = "profile-1";
    const commit = await seconds(async () => {
      for (let i = 0; i < EVENTS; i++)
        await app.do("update", { stream, actor }, { email: `user${i}@example.com`, name: `User ${i}` });
    });
    results[`commits/s, 1 stream x 5,000, ${label}`] = EVENTS / commit;
    const load = await seconds(async () => {
      for (let i = 0; i < LOADS; i++) await app.load(Profile, stream);
    });
    results[`loads/s, 5,000 events, ${label}`] = LOADS / load;
  }
  return results;
}
