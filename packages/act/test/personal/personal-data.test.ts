/**
 * Personal fields through the in-memory store: what `.personal()` accepts,
 * what an app without keys or without personal fields does, and what stays
 * out of snapshots and logs once a subject is forgotten.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { errorSerializer } from "../../src/core/ports.js";
import {
  act,
  BuilderError,
  FORGOTTEN,
  forgettable,
  InMemoryStore,
  InvariantError,
  PersonalDataError,
  SNAP_EVENT,
  state,
  type Store,
  store,
} from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const base = () =>
  state("Member", z.object({ email: z.string(), tier: z.string(), logins: z.number() }))
    .init(() => ({ email: "", tier: "", logins: 0 }))
    .emits({
      Joined: z.object({ memberId: z.string(), email: forgettable(z.email()), tier: z.enum(["gold", "silver"]) }),
      LoggedIn: z.object({ at: z.number() }),
    })
    .patch({
      Joined: ({ data }) => ({ email: data.email, tier: data.tier }),
      LoggedIn: (_, s) => ({ logins: s.logins + 1 }),
    });

const Member = base()
  .personal({ Joined: { fields: ["email"], subject: "memberId" } })
  .on("join", z.object({ memberId: z.string(), email: z.email() }))
  .emit(({ memberId, email }) => ["Joined", { memberId, email, tier: "gold" }])
  .on("login", z.object({ at: z.number() }))
  .given([{ description: "must have joined", valid: (s) => s.tier !== "" }])
  .emit(({ at }) => ["LoggedIn", { at }])
  .snap((s) => s.patches >= 2)
  .build();

const target = (stream: string) => ({ stream, actor });
const raw = async (log: Store, stream: string) => {
  const events: unknown[] = [];
  await log.query((e) => events.push(e), { stream, with_snaps: true });
  return JSON.stringify(events);
};

describe("marking personal fields", () => {
  it("refuses an unknown event or field, a field that cannot hold the placeholder, and a bad subject", () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(BuilderError);
        return (error as Error).message;
      }
      throw new Error("expected a BuilderError");
    };
    // @ts-expect-error: not an event of the state
    expect(refused(() => base().personal({ Left: { fields: ["email"] } }))).toMatch(/"Left" is not one of its events/);
    // @ts-expect-error: not a field of the event
    expect(refused(() => base().personal({ Joined: { fields: ["phone"] } }))).toMatch(/no field "phone"/);
    expect(refused(() => base().personal({ Joined: { fields: ["tier"] } }))).toMatch(
      /field "tier" of event "Joined" must accept "\[forgotten\]".*forgettable/
    );
    // @ts-expect-error: the subject must be a string field
    expect(refused(() => base().personal({ LoggedIn: { fields: [], subject: "at" } }))).toMatch(/marks no personal/);
    expect(refused(() => base().personal({ Joined: { fields: ["email", "memberId"], subject: "memberId" } }))).toMatch(
      /names the data subject, so it cannot be personal/
    );
  });

  it("keeps forgettable(schema)'s checks for real values", () => {
    const email = forgettable(z.email());
    expect(email.safeParse("a@b.co").success).toBe(true);
    expect(email.safeParse(FORGOTTEN).success).toBe(true);
    expect(email.safeParse("not an email").success).toBe(false);
  });

  it("leaves an app without personal fields on its store as it is", async () => {
    const plain = act()
      .with(
        base()
          .on("login", z.object({ at: z.number() }))
          .emit(({ at }) => ["LoggedIn", { at }])
          .build()
      )
      .build();
    expect(plain.store).toBe(store());
    await plain.do("login", target("m-0"), { at: 1 });
    expect(await raw(store(), "m-0")).toContain('"at":1');
  });
});

describe("an app with personal fields", () => {
  it("refuses to commit them on a store without subject keys, and commits nothing", async () => {
    const keyless = new InMemoryStore();
    Object.defineProperty(keyless, "keys", { value: undefined });
    const app = act().with(Member).build({ store: keyless });
    const error = await app.do("join", target("m-1"), { memberId: "p-1", email: "a@b.co" }).catch((e) => e);
    expect(error).toBeInstanceOf(PersonalDataError);
    expect(error).toMatchObject({ reason: "no-key-store", where: 'event "Joined" on stream "m-1"' });
    expect(await raw(keyless, "m-1")).toBe("[]");
    await expect(app.forget("p-1")).rejects.toMatchObject({ reason: "no-key-store" });
  });

  it("writes no snapshot from state another process still held in clear after the subject was forgotten", async () => {
    const [a, b] = [act().with(Member).build(), act().with(Member).build()];
    await b.do("join", target("m-2"), { memberId: "p-2", email: "held@example.com" });
    await a.forget("p-2");
    await b.do("login", target("m-2"), { at: 1 }); // b's cache holds the email: the snapshot rule fires
    await b.do("login", target("m-2"), { at: 2 });
    const stored = await raw(store(), "m-2");
    expect(stored).not.toContain("held@example.com");
    expect(stored).not.toContain(SNAP_EVENT);
    expect((await a.load(Member, "m-2")).state).toEqual({ email: FORGOTTEN, tier: "gold", logins: 2 });
  });

  it("seals the summary of a closed stream and loads it in clear", async () => {
    const app = act().with(Member).build();
    await app.do("join", target("m-5"), { memberId: "p-5", email: "closed@example.com" });
    await app.close(Member, "m-5", { by: actor });
    expect(await raw(store(), "m-5")).not.toContain("closed@example.com");
    expect((await act().with(Member).build().load(Member, "m-5")).state.email).toBe("closed@example.com");
  });

  it("opens personal fields for reactions and projections, and shows the placeholder after forget", async () => {
    const seen: string[] = [];
    const app = act()
      .with(Member)
      .on("Joined")
      .do(async (event) => {
        seen.push(event.data.email);
      })
      .build();
    await app.do("join", target("m-3"), { memberId: "p-3", email: "r@example.com" });
    await app.forget("p-3");
    await app.do("join", target("m-4"), { memberId: "p-4", email: "s@example.com" });
    await app.correlate();
    await app.drain();
    expect(seen).toEqual([FORGOTTEN, "s@example.com"]);
  });

  it("logs no personal data, not even at debug level, once a state marks personal fields", async () => {
    const app = act().with(Member).build();
    await app.do("join", target("m-5"), { memberId: "p-5", email: "debug@example.com" });
    const error = await app.do("login", target("m-6"), { at: 1 }).catch((e) => e); // never joined
    expect(error).toBeInstanceOf(InvariantError);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const state = await app.load(Member, "m-5");
    const leaky = new InvariantError("login", {}, target("m-5"), state as never, "rule");
    pino({ level: "debug", serializers: { err: errorSerializer(true) } }, sink).error(leaky, "failed");
    expect(lines.join("")).not.toContain("debug@example.com");
    expect(lines.join("")).toContain("failed invariant");
  });
});
