/**
 * Compile-time contract of the builders, checked by `tsc` in `npm test`:
 * every `@ts-expect-error` line must fail to compile, or tsc reports it unused.
 */
import { z } from "zod";
import { act, state, ZodEmpty } from "../src/index.js";
import { actor, Counter } from "./fixtures.js";

const app = act().with(Counter).build();
const target = { stream: "c", actor };

export async function inference() {
  const [snap] = await app.do("increment", target, { by: 1 });
  const count: number = snap.state.count;
  // @ts-expect-error misspelt action name
  await app.do("incremnt", target, { by: 1 });
  // @ts-expect-error wrong payload type
  await app.do("increment", target, { by: "1" });
  // @ts-expect-error missing payload field
  await app.do("increment", target, {});
  return count;
}

export function reactions() {
  act()
    .with(Counter)
    // @ts-expect-error misspelt event name
    .on("Incremnted");
  act()
    .with(Counter)
    .on("Incremented")
    .do(async (event) => {
      const by: number = event.data.by;
      // @ts-expect-error event data is typed by the event name
      const wrong: string = event.data.by;
      return [by, wrong];
    })
    .build();
}

export function builders() {
  state("Missing", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: ZodEmpty, B: ZodEmpty })
    // @ts-expect-error missing patch handler for B
    .patch({ A: () => ({}) });

  state("BadEmit", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: z.object({ x: z.number() }) })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    // @ts-expect-error emits an undeclared event
    .emit(() => ["Nope", { x: 1 }]);

  state("BadData", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: z.object({ x: z.number() }) })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    // @ts-expect-error emits wrong event data
    .emit(() => ["A", { x: "1" }]);

  state("Dup", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ A: ZodEmpty })
    .patch({ A: () => ({}) })
    .on("go", ZodEmpty)
    .emit(() => ["A", {}])
    // @ts-expect-error duplicate action name
    .on("go", ZodEmpty);
}
