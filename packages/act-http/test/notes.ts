/**
 * A small app to serve in the tests: notes with an owner, an action only
 * reactions use (Tag), a reaction that tags every new note, and a read
 * model of the notes kept in memory by a projection.
 */
import { type Actor, act, projection, state } from "@act-root/act";
import { z } from "zod";
import { bearerTokens, type HttpOptions, http, read, stream } from "../src/index.js";

export const alice: Actor = { id: "user:alice", name: "Alice" };
export const bob: Actor = { id: "user:bob", name: "Bob" };
const bot: Actor = { id: "system:tagger", name: "Tagger" };
export const TOKENS = { alice: "alice-0123456789abcdef", bob: "bob-0123456789abcdef" };

export const Note = state(
  "Note",
  z.object({ owner: z.string(), title: z.string(), body: z.string(), tags: z.array(z.string()), closed: z.boolean() })
)
  .init(() => ({ owner: "", title: "", body: "", tags: [], closed: false }))
  .emits({
    Created: z.object({ owner: z.string(), title: z.string(), body: z.string() }),
    Edited: z.object({ body: z.string() }),
    Tagged: z.object({ tag: z.string() }),
    Closed: z.object({}),
  })
  .patch({
    Created: ({ data }) => ({ owner: data.owner, title: data.title, body: data.body }),
    Edited: ({ data }) => ({ body: data.body }),
    Tagged: ({ data }, note) => ({ tags: [...note.tags, data.tag] }),
    Closed: () => ({ closed: true }),
  })
  .on("Create", z.object({ title: z.string().min(1).max(100), body: z.string().max(2_000) }))
  .given([{ description: "The note already exists", valid: (note) => note.owner === "" }])
  .emit(({ title, body }, _, { actor }) => ["Created", { owner: actor.id, title, body }])
  .on("Edit", z.object({ body: z.string().max(2_000) }))
  .given([
    { description: "The note does not exist", valid: (note) => note.owner !== "" },
    { description: "A closed note cannot be edited", valid: (note) => !note.closed },
  ])
  .emit(({ body }) => ["Edited", { body }])
  .on("Tag", z.object({ tag: z.string().min(1).max(20) }))
  .emit(({ tag }) => ["Tagged", { tag }])
  .on("Close", z.object({}))
  .given([{ description: "The note is already closed", valid: (note) => !note.closed }])
  .emit(() => ["Closed", {}])
  .build();

/** The read model: one row per note, kept by the projection. */
export const list = new Map<string, { id: string; owner: string; title: string; closed: boolean }>();
export const Notes = projection("Notes")
  .with(Note)
  .on("Created", (event) => {
    list.set(event.stream, { id: event.stream, owner: event.data.owner, title: event.data.title, closed: false });
  })
  .on("Closed", (event) => {
    const row = list.get(event.stream);
    if (row) row.closed = true;
  })
  .build();

export const app = act()
  .with(Note)
  .on("Created")
  .do(async (event, _stream, app) => {
    await app.do("Tag", { stream: event.stream, actor: bot }, { tag: "new" }, { reactingTo: event });
  })
  .with(Notes)
  .build();

/** The owner, or anyone for a note that does not exist yet. */
const owns = (actor: Actor, owner: string) => owner === "" || owner === actor.id;

/** The API's options, for tests that build a variant of it. */
export const options: HttpOptions<any, any> = {
  authenticate: bearerTokens([
    [TOKENS.alice, alice],
    [TOKENS.bob, bob],
  ]),
  actions: {
    Create: { authorize: () => true, summary: "Creates a note owned by the caller" },
    Edit: { authorize: async ({ actor, load }) => owns(actor, (await load()).state.owner) },
    Close: { authorize: async ({ actor, load }) => owns(actor, (await load()).state.owner) },
  },
  streams: [stream(Note, { stream: (id) => `note-${id}`, authorize: ({ actor, state }) => owns(actor, state.owner) })],
  reads: {
    notes: read({
      query: z.object({
        closed: z.enum(["true", "false"]).optional(),
        limit: z.coerce.number().int().min(1).max(50).default(10),
      }),
      answer: z.array(z.object({ id: z.string(), title: z.string(), closed: z.boolean() })),
      authorize: () => true,
      projection: Notes,
      // Only the caller's notes; the owner column stays on the server (the answer schema leaves it out).
      read: ({ closed, limit }, actor) =>
        [...list.values()]
          .filter((row) => row.owner === actor.id && (closed === undefined || String(row.closed) === closed))
          .slice(0, limit),
    }),
  },
  wait: { timeoutMillis: 1_000 },
  events: { pollMillis: 50, heartbeatMillis: 1_000 },
  info: { title: "Notes", version: "1.0.0" },
  log: () => undefined,
};

export const api = http(app, options);
