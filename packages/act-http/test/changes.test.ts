/**
 * Reads served live (`GET /reads/{name}/changes`): the answer at once, again
 * when the projection behind it moves and the answer differs, resumable
 * with `Last-Event-ID`, the read's rule asked before every answer, and the
 * build refusing a projection whose position the store does not hold.
 */
import { act, InMemoryStore, projection } from "@act-root/act";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { http, read, stream } from "../src/index.js";
import { alice, app, bob, Note, Notes, list, options, TOKENS } from "./notes.js";

type Message = { id?: string; event: string; data: any };

/** Reads a response's SSE messages one at a time; comments (keep-alives) are skipped. */
function messages(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<Message | undefined> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) continue;
          const field = (name: string) =>
            block
              .split("\n")
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          return { id: field("id"), event: field("event")!, data: JSON.parse(field("data")!) };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

let n = 0;
const newId = () => `changes-${++n}`;
const create = async (actor: typeof alice, title: string) => {
  await app.do("Create", { stream: `note-${newId()}`, actor }, { title, body: "b" });
  await app.drain();
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until `probe` is true (no timing is asserted: it only orders the test's steps). */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await sleep(5);
}

describe("a read served live", () => {
  it("answers at once, again when the projection moves and the answer differs, and resumes after Last-Event-ID", async () => {
    let reads = 0;
    const api = http(app, {
      ...options,
      reads: {
        mine: read({
          query: z.object({}),
          answer: z.array(z.string()),
          authorize: () => true,
          projection: Notes,
          read: (_, actor) => {
            reads++;
            return [...list.values()].filter((row) => row.owner === actor.id).map((row) => row.title);
          },
        }),
      },
    });
    const auth = { Authorization: `Bearer ${TOKENS.alice}` };
    const res = await api.fetch(new Request("http://x/reads/mine/changes", { headers: auth }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/event-stream; charset=utf-8");
    const live = messages(res);
    const first = await live.next();
    expect(first?.event).toBe("answer");
    const before: string[] = first!.data;

    await create(alice, "one");
    const second = await live.next();
    expect(second?.data).toEqual([...before, "one"]);
    const position = (await app.store.reactions({ streams: [Notes.stream] }))[0].at;
    expect(second?.id).toBe(String(position));

    // Bob's note moves the projection but not Alice's answer: it is read again, and not sent.
    const seen = reads;
    await create(bob, "bob's");
    await until(() => reads > seen);
    await create(alice, "two");
    const third = await live.next();
    expect(third?.data).toEqual([...before, "one", "two"]);
    expect(Number(third?.id)).toBeGreaterThan(Number(second?.id));
    await live.cancel();

    // Resumed at the last id it got: nothing until the projection moves again.
    const resumed = await api.fetch(
      new Request("http://x/reads/mine/changes", { headers: { ...auth, "Last-Event-ID": third!.id! } })
    );
    const again = messages(resumed);
    const next = again.next();
    await create(alice, "three");
    expect((await next)?.data).toEqual([...before, "one", "two", "three"]);
    await again.cancel();
    await api.close();
  });

  it("asks the read's rule before every answer, and ends the connection once it says no", async () => {
    let allowed = true;
    const api = http(app, {
      ...options,
      reads: {
        titles: read({
          query: z.object({}),
          answer: z.array(z.string()),
          authorize: () => allowed,
          projection: Notes,
          read: () => [...list.values()].map((row) => row.title),
        }),
      },
    });
    const res = await api.fetch(
      new Request("http://x/reads/titles/changes", { headers: { Authorization: `Bearer ${TOKENS.alice}` } })
    );
    const live = messages(res);
    expect((await live.next())?.event).toBe("answer");
    allowed = false;
    await create(alice, "hidden");
    expect(await live.next()).toBeUndefined();
    expect(
      (
        await api.fetch(
          new Request("http://x/reads/titles/changes", { headers: { Authorization: `Bearer ${TOKENS.alice}` } })
        )
      ).status
    ).toBe(403);
    await api.close();
  });

  it("authenticates the caller again before every answer, and ends the connection once the token is revoked", async () => {
    let revoked = false;
    const api = http(app, {
      ...options,
      authenticate: () => (revoked ? undefined : alice),
      reads: {
        titles: read({
          query: z.object({}),
          answer: z.array(z.string()),
          authorize: () => true,
          projection: Notes,
          read: () => [...list.values()].map((row) => row.title),
        }),
      },
    });
    const live = messages(await api.fetch(new Request("http://x/reads/titles/changes")));
    expect((await live.next())?.event).toBe("answer");
    revoked = true;
    await create(alice, "after revocation");
    expect(await live.next()).toBeUndefined();
    await api.close();
  });

  it("is served only for reads that name their projection, after the same checks as the read itself", async () => {
    const api = http(app, {
      ...options,
      reads: {
        ...options.reads,
        plain: read({ query: z.object({}), answer: z.array(z.string()), authorize: () => true, read: () => [] }),
      },
    });
    const get = (path: string, token?: string) =>
      api.fetch(new Request(`http://x${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }));
    expect((await get("/reads/notes/changes")).status).toBe(401);
    const plain = await get("/reads/plain/changes", TOKENS.alice);
    expect(plain.status).toBe(404);
    expect(await plain.json()).toMatchObject({
      code: "ERR_NOT_FOUND",
      detail: expect.stringContaining("names no projection"),
    });
    const bad = await get("/reads/notes/changes?limit=500", TOKENS.alice);
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors).toEqual([expect.objectContaining({ path: "limit" })]);
    expect(await get("/reads/notes/changes", TOKENS.alice).then((r) => r.headers.get("Content-Type"))).toMatch(
      /^text\/event-stream/
    );
    await api.close();
    expect(api.openapi.paths["/reads/notes/changes"]).toBeDefined();
    expect(api.openapi.paths["/reads/plain/changes"]).toBeUndefined();
  });

  it("follows an inline projection: each commit of an event it handles is a move, with no drain", async () => {
    const titles: string[] = [];
    const Titles = projection("Titles", { inline: true })
      .with(Note)
      .on("Created", (event) => void titles.push(event.data.title))
      .build();
    const inlineApp = act().with(Note).with(Titles).build({ store: new InMemoryStore() });
    const api = http(inlineApp, {
      authenticate: () => alice,
      actions: {},
      streams: [stream(Note, { authorize: () => true })],
      reads: {
        titles: read({
          query: z.object({}),
          answer: z.array(z.string()),
          authorize: () => true,
          projection: Titles,
          read: () => [...titles],
        }),
      },
      events: { pollMillis: 120_000, heartbeatMillis: 120_000 },
    });
    const live = messages(await api.fetch(new Request("http://x/reads/titles/changes")));
    expect(await live.next()).toEqual({ id: undefined, event: "answer", data: [] });
    await inlineApp.do("Create", { stream: "n-1", actor: alice }, { title: "inline", body: "b" });
    // Polls and keep-alives are two minutes apart: only the commit's wake-up brings this answer before the test's timeout.
    const [event] = await inlineApp.queryArray({ stream: "n-1" });
    expect(await live.next()).toEqual({ id: String(event.id), event: "answer", data: ["inline"] });
    await live.cancel();
    await api.close();
  });

  it("refuses at build a read naming a local projection, or something that is not a projection", () => {
    const Local = projection("LocalNotes", { local: true })
      .with(Note)
      .on("Created", () => undefined)
      .build();
    const reading = (projection: unknown) => ({
      ...options,
      reads: {
        r: read({
          query: z.object({}),
          answer: z.array(z.string()),
          authorize: () => true,
          projection: projection as typeof Local,
          read: () => [],
        }),
      },
    });
    expect(() => http(app, reading(Local))).toThrow(/read "r" names projection "LocalNotes", which is local/);
    expect(() => http(app, reading({ name: "x" }))).toThrow(/read "r" names a projection that is not one/);
  });
});
