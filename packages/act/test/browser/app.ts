// A small app bundled for the browser by browser.test.ts: state, act, in-memory store, drain.
import { z } from "zod";
import { act, state, store } from "../../src/index.js";

const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }), Mirrored: z.object({ by: z.number() }) })
  .patch({
    Incremented: (e, s) => ({ count: s.count + e.data.by }),
    Mirrored: (e, s) => ({ count: s.count + e.data.by }),
  })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by }])
  .on("mirror", z.object({ by: z.number() }))
  .emit(({ by }) => ["Mirrored", { by }])
  .snap((s) => s.patches >= 2)
  .build();

const app = act()
  .with(Counter)
  .on("Incremented")
  .do(async (event, _stream, app) => {
    await app.do(
      "mirror",
      { stream: "mirror", actor: { id: "bot", name: "bot" } },
      { by: event.data.by },
      { reactingTo: event }
    );
  })
  .to("mirror")
  .build();

export async function run() {
  const actor = { id: "u", name: "browser" };
  for (const by of [1, 2, 3]) await app.do("increment", { stream: "c", actor }, { by });
  for (let i = 0; i < 10; i++) if (!(await app.drain()).acked.length) break;
  const counter = await app.load(Counter, "c");
  const mirror = await app.load(Counter, "mirror");
  let events = 0;
  await store().query(() => events++, { with_snaps: true });
  return { count: counter.state.count, mirrored: mirror.state.count, snaps: counter.snaps, events };
}
