import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import { PersonalDataError } from "../core/errors.js";
import { FORGOTTEN } from "../core/forgotten.js";
import { SNAP_EVENT } from "../core/schemas.js";
import type { Committed, Schemas } from "../types/action.js";
import type { SubjectKeyStore } from "../types/personal.js";
import type { Store } from "../types/ports.js";
import type { TestApi } from "./test-api.js";

const actor = { id: "u-1", name: "User" };

/**
 * The states the tests run, built on first use: marking personal fields
 * changes what the process logs, and importing the test kit changes nothing.
 */
const models = () => {
  /** A customer's profile: the stream is the subject; a snapshot every third patch. */
  const Customer = state("Customer", z.object({ email: z.string(), name: z.string(), visits: z.number() }))
    .init(() => ({ email: "", name: "", visits: 0 }))
    .emits({
      Registered: z.object({ email: z.string(), name: z.string() }),
      Visited: z.object({ page: z.string() }),
    })
    .patch({
      Registered: ({ data }) => ({ email: data.email, name: data.name }),
      Visited: (_, s) => ({ visits: s.visits + 1 }),
    })
    .personal({ Registered: { fields: ["email", "name"] } })
    .on("register", z.object({ email: z.string(), name: z.string() }))
    .emit((p) => ["Registered", p])
    .on("visit", z.object({ page: z.string() }))
    .emit((p) => ["Visited", p])
    .snap((s) => s.patches >= 3)
    .build();
  /** An order: its `customer` field names the subject of its `address`. */
  const Order = state("Order", z.object({ customer: z.string(), address: z.string(), total: z.number() }))
    .init(() => ({ customer: "", address: "", total: 0 }))
    .emits({ Ordered: z.object({ customer: z.string(), address: z.string(), total: z.number() }) })
    .patch({ Ordered: ({ data }) => data })
    .personal({ Ordered: { fields: ["address"], subject: "customer" } })
    .on("order", z.object({ customer: z.string(), address: z.string(), total: z.number() }))
    .emit((p) => ["Ordered", p])
    .build();
  return { Customer, Order };
};
let built: ReturnType<typeof models> | undefined;
const appOn = (store: Store) => {
  built ??= models();
  return act().with(built.Customer).with(built.Order).build({ store });
};
const Customer = () => {
  built ??= models();
  return built.Customer;
};

/** Every event of the store as it keeps it (no app in between), snapshots included. */
async function raw(store: Store, stream?: string): Promise<Committed<Schemas, string>[]> {
  const events: Committed<Schemas, string>[] = [];
  await store.query((e) => events.push(e as Committed<Schemas, string>), { with_snaps: true, stream });
  return events;
}

/**
 * A value as the first format of personal fields stored it, written here
 * independently of the library: each field sealed on its own, the event name
 * and the field as additional data.
 */
async function sealedAlone(
  key: string,
  subject: string,
  version: number,
  value: unknown,
  event: string,
  field: string
) {
  const encode = (text: string) => new TextEncoder().encode(text);
  const base64url = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  const raw = Uint8Array.from(atob(key), (c) => c.charCodeAt(0));
  const crypto = globalThis.crypto.subtle;
  const imported = await crypto.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const additionalData = encode(`${event}\u0000${field}`);
  const sealed = await crypto.encrypt({ name: "AES-GCM", iv, additionalData }, imported, encode(JSON.stringify(value)));
  return `act-pd:1:${version}:${base64url(encode(subject))}:${base64url(iv)}:${base64url(new Uint8Array(sealed))}`;
}

const keysOf = (store: Store): SubjectKeyStore => {
  if (!store.keys) throw new Error("the store keeps no subject keys (Store.keys)");
  return store.keys;
};

/**
 * The part of the store conformance suite about personal data
 * (`Store.keys`), through an app: personal fields stored encrypted and read
 * in clear, `forget` (the fields read as the placeholder, the subject's
 * snapshots emptied, later writes refused, an unknown subject refused), key
 * rotation, a subject named by a field, and stored values changed or
 * without their key refused with a {@link PersonalDataError}. Registered by
 * {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function personalConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  const reason = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e
    );
    expect(error).toBeInstanceOf(PersonalDataError);
    return (error as PersonalDataError).reason;
  };

  describe("personal data", () => {
    it("stores personal fields encrypted and reads them in clear through the app", async () => {
      const app = appOn(store());
      await app.do("register", { stream: "cust-1", actor }, { email: "ann@example.com", name: "Ann" });
      const [stored] = await raw(store(), "cust-1");
      expect(JSON.stringify(stored.data)).not.toMatch(/ann@example\.com|Ann/);
      // Both fields in one ciphertext, held by the first; the other names it.
      expect(stored.data).toEqual({ email: expect.stringMatching(/^act-pd:2:1:/), name: "act-pd:2:in:email" });
      expect((await appOn(store()).load(Customer(), "cust-1")).state).toMatchObject({ email: "ann@example.com" });
      expect((await app.queryArray({ stream: "cust-1" }))[0].data).toEqual({ email: "ann@example.com", name: "Ann" });
      const [key] = await keysOf(store()).read([{ subject: "cust-1", version: 1 }]);
      expect(key.key).toMatch(/^[A-Za-z0-9+/]{43}=$/); // 32 bytes in base64
    });

    it("forgets a subject: its fields read as the placeholder, reducers still fold, snapshots are emptied", async () => {
      const app = appOn(store());
      const target = { stream: "cust-2", actor };
      await app.do("register", target, { email: "bob@example.com", name: "Bob" });
      await app.do("visit", target, { page: "/a" });
      await app.do("visit", target, { page: "/b" }); // third patch: a snapshot, its state sealed whole
      const snapshot = (await raw(store(), "cust-2")).find((e) => e.name === SNAP_EVENT);
      expect((snapshot?.data as { state: string } | undefined)?.state).toMatch(/^act-pd:2:1:/);
      expect(JSON.stringify(await raw(store(), "cust-2"))).not.toMatch(/bob@example\.com|Bob/);
      expect((await appOn(store()).load(Customer(), "cust-2")).state.email).toBe("bob@example.com"); // from the snapshot
      const done = await app.forget("cust-2");
      expect(done).toEqual({ subject: "cust-2", versions: 1, snapshots: 1 });
      expect((await raw(store(), "cust-2")).find((e) => e.name === SNAP_EVENT)?.data).toEqual({
        of: "[forgotten]",
        state: null,
      });
      for (const reader of [app, appOn(store())])
        expect((await reader.load(Customer(), "cust-2")).state).toEqual({
          email: FORGOTTEN,
          name: FORGOTTEN,
          visits: 2,
        });
      await app.do("visit", target, { page: "/c" }); // non-personal events still commit
      expect((await app.load(Customer(), "cust-2")).state.visits).toBe(3);
      expect(await reason(app.do("register", target, { email: "bob@example.com", name: "Bob" }))).toBe(
        "forgotten-subject"
      );
      expect(await app.forget("cust-2")).toMatchObject({ versions: 1, snapshots: 0 }); // again: nothing left
      expect((await keysOf(store()).read([{ subject: "cust-2", version: 1 }]))[0].key).toBeNull();
      expect((await raw(store(), "cust-2")).filter((e) => e.name === SNAP_EVENT)).toHaveLength(1);
    });

    it("refuses to forget or rotate a subject it has no key for", async () => {
      const app = appOn(store());
      expect(await reason(app.forget("nobody"))).toBe("unknown-subject");
      expect(await reason(app.rotate("nobody"))).toBe("unknown-subject");
    });

    it("rotates keys: new writes use the new version, old events still read, forget destroys every version", async () => {
      const app = appOn(store());
      const target = { stream: "cust-3", actor };
      await app.do("register", target, { email: "v1@example.com", name: "One" });
      expect(await app.rotate("cust-3")).toBe(2);
      await app.do("register", target, { email: "v2@example.com", name: "Two" });
      const versions = (await raw(store(), "cust-3")).map((e) => (e.data as { email: string }).email.split(":")[2]);
      expect(versions).toEqual(["1", "2"]);
      const read = await app.queryArray({ stream: "cust-3" });
      expect(read.map((e) => (e.data as { email: string }).email)).toEqual(["v1@example.com", "v2@example.com"]);
      expect(await app.forget("cust-3")).toMatchObject({ versions: 2 });
      const keys = await keysOf(store()).read([1, 2].map((version) => ({ subject: "cust-3", version })));
      expect(keys.map((k) => k.key)).toEqual([null, null]);
      expect(await reason(app.rotate("cust-3"))).toBe("unknown-subject");
    });

    it("reads events whose fields an earlier version sealed one by one, and forgets them too", async () => {
      const fresh = btoa(String.fromCharCode(...globalThis.crypto.getRandomValues(new Uint8Array(32))));
      const { key, version } = await keysOf(store()).current({ subject: "cust-9", stream: "cust-9", fresh });
      const email = await sealedAlone(key!, "cust-9", version, "old@example.com", "Registered", "email");
      const name = await sealedAlone(key!, "cust-9", version, "Old", "Registered", "name");
      const meta = { correlation: "x", causation: {} };
      await store().commit({ stream: "cust-9", messages: [{ name: "Registered", data: { email, name } }], meta });
      const app = appOn(store());
      expect((await app.load(Customer(), "cust-9")).state).toMatchObject({ email: "old@example.com", name: "Old" });
      await app.do("register", { stream: "cust-9", actor }, { email: "new@example.com", name: "New" });
      expect((await app.queryArray({ stream: "cust-9" })).map((e) => e.data)).toEqual([
        { email: "old@example.com", name: "Old" },
        { email: "new@example.com", name: "New" },
      ]);
      await app.forget("cust-9");
      expect((await app.queryArray({ stream: "cust-9" })).map((e) => e.data)).toEqual([
        { email: FORGOTTEN, name: FORGOTTEN },
        { email: FORGOTTEN, name: FORGOTTEN },
      ]);
    });

    it("forgets a subject named by a field in every stream holding its data", async () => {
      const app = appOn(store());
      await app.do("order", { stream: "order-1", actor }, { customer: "c-9", address: "1 Elm St", total: 5 });
      await app.do("order", { stream: "order-2", actor }, { customer: "c-9", address: "1 Elm St", total: 7 });
      await app.do("order", { stream: "order-3", actor }, { customer: "c-8", address: "2 Oak Rd", total: 1 });
      await app.forget("c-9");
      const orders = await app.queryArray({ names: ["Ordered"] });
      expect(orders.map((e) => e.data)).toEqual([
        { customer: "c-9", address: FORGOTTEN, total: 5 },
        { customer: "c-9", address: FORGOTTEN, total: 7 },
        { customer: "c-8", address: "2 Oak Rd", total: 1 },
      ]);
    });

    it("refuses a stored value that was changed, copied into another event, or names a key the store lacks", async () => {
      const app = appOn(store());
      await app.do("register", { stream: "cust-4", actor }, { email: "eve@example.com", name: "Eve" });
      const [stored] = await raw(store(), "cust-4");
      const { email, name } = stored.data as { email: string; name: string };
      const flipped = email.slice(0, -2) + (email.at(-2) === "A" ? "B" : "A") + email.at(-1);
      const meta = { correlation: "x", causation: {} };
      await store().commit({
        stream: "cust-5",
        messages: [{ name: "Registered", data: { email: flipped, name } }],
        meta,
      });
      await store().commit({ stream: "cust-6", messages: [{ name: "Registered", data: { email, name } }], meta }); // another stream
      await store().commit({
        stream: "cust-7",
        messages: [{ name: "Registered", data: { email: email.replace(/^act-pd:2:1:/, "act-pd:2:9:"), name } }],
        meta,
      });
      await store().commit({
        stream: "cust-8",
        messages: [{ name: "Registered", data: { email: "act-pd:1:x", name } }],
        meta,
      });
      expect(await reason(app.load(Customer(), "cust-5"))).toBe("tampered");
      expect(await reason(app.load(Customer(), "cust-6"))).toBe("tampered");
      expect(await reason(app.load(Customer(), "cust-7"))).toBe("missing-key");
      expect(await reason(app.load(Customer(), "cust-8"))).toBe("malformed");
      await store().commit({
        stream: "cust-10",
        messages: [{ name: "Registered", data: { email: "x", name: "act-pd:2:in:email" } }],
        meta,
      });
      expect(await reason(app.load(Customer(), "cust-10"))).toBe("malformed");
      await app.load(Customer(), "cust-5").catch((error: Error) => {
        expect(error.message).toMatch(/field "email" of event "Registered" #\d+ on stream "cust-5"/);
        expect(error.message).not.toContain("eve@example.com");
      });
    });

    it("refuses personal data without a subject to encrypt it for", async () => {
      const app = appOn(store());
      const bad = { customer: "", address: "3 Pine Ave", total: 1 };
      expect(await reason(app.do("order", { stream: "order-9", actor }, bad))).toBe("no-subject");
      expect(await raw(store(), "order-9")).toEqual([]);
    });
  });
}

/**
 * What {@link personalDataProof} needs of a store: the store, and every byte
 * it keeps.
 *
 * @experimental
 * @example
 * ```ts
 * const memory = new InMemoryStore();
 * const target: ProofTarget = { store: () => memory, dump: async () => "" };
 * ```
 */
export type ProofTarget = {
  /** The store under test; it is seeded and dropped by the proof. */
  store: () => Store | Promise<Store>;
  /** Every byte the store keeps of its data, as it would be copied or backed up (a file, a dump). */
  dump: () => Promise<Uint8Array | string>;
};

/**
 * Registers the proof that forgetting a data subject leaves none of its
 * personal data in the store: distinctive values written as personal
 * fields (and folded into a snapshot) are in none of the bytes `dump`
 * returns, before `app.forget` or after it, and after it neither is the
 * start of the subject's key — while a field that is not personal, and the
 * key before forgetting, show that `dump` sees the data at all. It fails if
 * the fields or a snapshot's state are stored unencrypted, or if a key's
 * bytes outlive `forget`.
 *
 * @experimental
 * @param name - names the store in the test titles
 * @param target - the store, and how to read all of its bytes
 * @param test - the test runner's functions
 * @see [Personal data](/docs/guides/personal-data) — what is encrypted and what forgetting erases.
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises";
 * import * as vitest from "vitest";
 * import { SqliteStore } from "@act-root/act-sqlite";
 * import { personalDataProof } from "@act-root/act/testing";
 *
 * personalDataProof("sqlite", { store: () => new SqliteStore({ filename: "proof.db" }), dump: () => readFile("proof.db") }, vitest);
 * ```
 */
export function personalDataProof(name: string, target: ProofTarget, test: TestApi): void {
  const { describe, expect, it, afterAll } = test;
  const email = "zq-proof-7781@example.org";
  const fullName = "Zyxwvu Qutsrp";
  const page = "/zq-page-4411";
  const bytes = async () => {
    const dump = await target.dump();
    return typeof dump === "string" ? new TextEncoder().encode(dump) : dump;
  };
  const contains = (haystack: Uint8Array, text: string) => {
    const needle = new TextEncoder().encode(text);
    search: for (let i = 0; i <= haystack.length - needle.length; i++) {
      for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue search;
      return true;
    }
    return false;
  };

  describe(`Personal data proof: ${name}`, () => {
    let store: Store;
    afterAll(async () => {
      await store?.dispose();
    });

    it("keeps no byte of a forgotten subject's personal data, nor its key", async () => {
      store = await target.store();
      await store.drop();
      await store.seed();
      const app = appOn(store);
      const customer = { stream: "proof-customer", actor };
      await app.do("register", customer, { email, name: fullName });
      await app.do("visit", customer, { page });
      await app.do("visit", customer, { page: "/q" }); // a snapshot: the state, sealed
      await app.do(
        "order",
        { stream: "proof-order", actor },
        { customer: "proof-customer", address: fullName, total: 3 }
      );
      const [key] = await keysOf(store).read([{ subject: "proof-customer", version: 1 }]);
      // A key's first 16 characters: a row rewritten shorter may leave the start of the old one behind.
      const secrets = [email, fullName, key.key!.slice(0, 16)];
      const before = await bytes();
      expect(contains(before, page)).toBe(true); // the dump does see the events
      expect(contains(before, secrets[2])).toBe(true); // and the keys
      for (const secret of secrets.slice(0, 2)) expect(contains(before, secret)).toBe(false); // sealed from the start
      await app.forget("proof-customer");
      const after = await bytes();
      expect(contains(after, page)).toBe(true);
      for (const secret of secrets) expect(contains(after, secret)).toBe(false);
      expect((await app.load(Customer(), "proof-customer")).state).toMatchObject({ email: FORGOTTEN, visits: 2 });
    });
  });
}
