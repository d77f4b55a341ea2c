/**
 * A store at the sizes the inspector must handle, for the browser tests: a
 * stream of 40,000 events, 6,000 reaction streams with one blocked far down
 * the list by name, a few leased and a few behind, a stream of one event and
 * a stream whose name is 256 characters long, with a payload too large to
 * send whole. In memory: it takes a second to build, and the tests only read it.
 */
import { InMemoryStore } from "@act-root/act";

/** The stream of 40,000 events. */
export const LONG = "long-1";
export const LONG_EVENTS = 40_000;
/** How many reaction streams, and the one that is blocked. */
export const REACTION_STREAMS = 6_000;
export const BLOCKED = "reaction-05000";
/** A stream of one event. */
export const SINGLE = "single-1";
/** A 256-character stream name without a space. */
export const LONG_NAME = `order-${"x".repeat(243)}-000001`;

/** Builds the store. */
export async function sizes(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  for (let batch = 0; batch < LONG_EVENTS / 1_000; batch++)
    await store.commit({
      stream: LONG,
      messages: Array.from({ length: 1_000 }, (_, i) => ({ name: "Counted", data: { n: batch * 1_000 + i } })),
      meta: { correlation: `long-${batch}`, causation: {} },
      expectedVersion: batch * 1_000 - 1,
    });
  await store.commit({
    stream: SINGLE,
    messages: [{ name: "Opened", data: {} }],
    meta: { correlation: "single", causation: {} },
  });
  await store.commit({
    stream: LONG_NAME,
    messages: [
      { name: "Opened", data: { note: "y".repeat(3_000) } },
      { name: "Renamed", data: { to: LONG_NAME } },
    ],
    meta: { correlation: "long-name", causation: {} },
  });
  const name = (i: number) => `reaction-${String(i).padStart(5, "0")}`;
  // Registered, every one with work found up to the last event (head) and half of them caught up.
  await store.lease(
    Array.from({ length: REACTION_STREAMS }, (_, i) => ({
      stream: name(i),
      by: "seed",
      at: i % 2 ? LONG_EVENTS : -1,
      head: LONG_EVENTS,
      retry: 0,
    })),
    0
  );
  await store.lease([{ stream: LONG_NAME, by: "seed", at: -1, head: LONG_EVENTS, retry: 0 }], 0);
  // Three leased for an hour, one of them then blocked.
  const leased = await store.lease(
    ["reaction-00002", "reaction-00004", BLOCKED].map((stream) => ({ stream, by: "worker-a", at: -1, retry: 0 })),
    3_600_000
  );
  const toBlock = leased.find((l) => l.stream === BLOCKED)!;
  await store.block([{ ...toBlock, retry: 3, error: "Payment gateway refused the refund" }]);
  return store;
}
