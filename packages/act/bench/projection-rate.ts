/**
 * How fast a projection catches up, shared by the stores' benchmarks
 * (act-pg's and act-sqlite's `bench/projections.ts`): an app with the
 * projection's state and the projection alone drains until the projection
 * has handled every event of the store.
 */
import { act, type DrainOptions, type Projection, type State } from "@act-root/act";

/** Drains `p` (over events of `state`) with `options` until it has projected every event; returns events per second. */
export async function projectionRate(
  state: State<any, any, any>,
  p: Projection<any, any>,
  events: number,
  options: DrainOptions = {}
): Promise<number> {
  const app = act().with(state).with(p).build();
  await app.correlate({ limit: 1_000_000 });
  const t = performance.now();
  for (let idle = 0; ; ) {
    const { acked } = await app.drain({ leaseMillis: 30_000, ...options });
    if (!acked.length && ++idle > 3) break;
  }
  const seconds = (performance.now() - t) / 1000;
  const position = (await app.stats(1)).streams.find((s) => s.stream === p.stream);
  if (!position || position.lag) throw new Error(`projection ${p.stream} did not catch up`);
  return events / seconds;
}
