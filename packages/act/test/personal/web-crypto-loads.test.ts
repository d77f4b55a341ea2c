/**
 * Loads where the runtime has no `node:crypto` (a browser): the engine is
 * WebCrypto, whose decryptions are promises, so a page of sealed values is
 * opened concurrently instead of one after the other. The same answers as
 * on Node: values in clear, the placeholder once forgotten, a value
 * copied from another stream refused.
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, FORGOTTEN, InMemoryStore, PersonalDataError, state } from "../../src/index.js";
import { actor } from "../fixtures.js";

vi.mock("../../src/personal/aes-gcm.js", async (original) => {
  const engines = await original<typeof import("../../src/personal/aes-gcm.js")>();
  return { ...engines, engine: () => engines.webEngine };
});

const Contact = state("Contact", z.object({ email: z.string(), changes: z.number() }))
  .init(() => ({ email: "", changes: 0 }))
  .emits({ Changed: z.object({ email: z.string() }) })
  .patch({ Changed: ({ data }, s) => ({ email: data.email, changes: s.changes + 1 }) })
  .personal({ Changed: { fields: ["email"] } })
  .on("change", z.object({ email: z.string() }))
  .emit((p) => ["Changed", p])
  .build();

describe("personal fields with WebCrypto", () => {
  it("opens a stream's values, gives the placeholder once forgotten, and refuses a value copied from another stream", async () => {
    const store = new InMemoryStore();
    const app = act().with(Contact).build({ store });
    for (let i = 0; i < 3; i++) await app.do("change", { stream: "c-1", actor }, { email: `v${i}@example.com` });
    await app.do("change", { stream: "c-2", actor }, { email: "other@example.com" });
    expect((await app.load(Contact, "c-1")).state).toEqual({ email: "v2@example.com", changes: 3 });
    expect((await app.queryArray({})).map((e) => e.data)).toEqual([
      { email: "v0@example.com" },
      { email: "v1@example.com" },
      { email: "v2@example.com" },
      { email: "other@example.com" },
    ]);

    await app.forget("c-1");
    expect((await app.load(Contact, "c-1")).state).toEqual({ email: FORGOTTEN, changes: 3 });
    expect((await app.load(Contact, "c-2")).state.email).toBe("other@example.com");

    // The second stream's value copied into a third stream: bound to its own, it fails authentication.
    const stored: { data: { email: string } }[] = [];
    await store.query((e) => stored.push(e as never), { stream: "c-2" });
    await store.commit({
      stream: "c-3",
      messages: [{ name: "Changed", data: stored[0].data }],
      meta: { correlation: "x", causation: {} },
    });
    const refused = await app.load(Contact, "c-3").catch((e) => e);
    expect(refused).toBeInstanceOf(PersonalDataError);
    expect(refused.reason).toBe("tampered");
  });
});
