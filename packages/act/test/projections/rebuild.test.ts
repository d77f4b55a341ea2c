/**
 * The switch-over of a rebuild runs only once the new version has projected
 * the last event it handles: one event short, readers would be pointed at a
 * read model that misses it.
 */
import { beforeEach, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, projection, state } from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const Ticket = state("Ticket", z.object({ title: z.string() }))
  .init(() => ({ title: "" }))
  .emits({ TicketOpened: z.object({ title: z.string() }) })
  .patch({ TicketOpened: (e) => ({ title: e.data.title }) })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["TicketOpened", { title }])
  .build();

it("switches over after the last event is projected, never one event before", async () => {
  const writer = act().with(Ticket).build();
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [snap] = await writer.do("open", { stream: `t-${i}`, actor }, { title: `#${i}` });
    ids.push(snap.event!.id);
  }
  const rows = new Map<string, string>();
  const V2 = projection("OpenTickets", { version: 2 })
    .with(Ticket)
    .on("TicketOpened", (event) => void rows.set(event.stream, event.data.title))
    .build();
  const app = act().with(Ticket).with(V2).build();

  const seen: number[] = [];
  let switchedWith: string[] | undefined;
  const rebuilding = app.rebuild(V2, {
    progressMillis: 1,
    onProgress: ({ at }) => void seen.push(at),
    switchOver: () => {
      switchedWith = [...rows.keys()];
    },
  });
  // Move the new version one event at a time, and let the rebuild look at
  // every position it passes, the one just before the last included.
  for (const id of ids.slice(0, -1)) {
    await app.drain({ eventLimit: 1, backlogMillis: 0 });
    await vi.waitFor(() => expect(seen).toContain(id), { timeout: 5_000, interval: 1 });
    expect(switchedWith, `switched over at event #${id}, before the last (#${ids.at(-1)})`).toBeUndefined();
  }
  await app.drain({ eventLimit: 1, backlogMillis: 0 });
  const done = await rebuilding;

  expect(done).toMatchObject({ at: ids.at(-1), target: ids.at(-1), total: 5, projected: 5, done: true });
  expect(switchedWith).toEqual(["t-0", "t-1", "t-2", "t-3", "t-4"]);
});
