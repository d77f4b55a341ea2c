/**
 * The digest an idempotency key is stored with: the same for the same
 * request whatever the order of its payload's keys, different for another
 * action, actor or payload — and the same from `node:crypto` and from Web
 * Crypto, so keys stored by a server still match where only Web Crypto runs.
 */
import * as crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { requestDigest, sha256Hex } from "../../src/committing/request-digest.js";

describe("the request digest of an idempotency key", () => {
  it("hashes alike with node:crypto and with Web Crypto, the standard SHA-256", async () => {
    // FIPS 180-2's first test vector.
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(await sha256Hex("abc", crypto)).toBe(abc);
    expect(await sha256Hex("abc")).toBe(abc);
    const text = JSON.stringify(["open", "ann", { title: "Zoë's ticket ✓", at: [1, 2] }]);
    expect(await sha256Hex(text, crypto)).toBe(await sha256Hex(text));
  });

  it("is the same for the same request, whatever the order of the payload's keys", async () => {
    const one = await requestDigest("open", { id: "ann" }, { title: "a", priority: 2, tags: { b: 1, a: 2 } });
    const two = await requestDigest("open", { id: "ann" }, { tags: { a: 2, b: 1 }, priority: 2, title: "a" });
    expect(one).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(two).toBe(one);
  });

  it("differs for another action, actor or payload", async () => {
    const base = await requestDigest("open", { id: "ann" }, { title: "a" });
    expect(await requestDigest("close", { id: "ann" }, { title: "a" })).not.toBe(base);
    expect(await requestDigest("open", { id: "bob" }, { title: "a" })).not.toBe(base);
    expect(await requestDigest("open", { id: "ann" }, { title: "b" })).not.toBe(base);
    // Array order is part of the payload.
    expect(await requestDigest("open", { id: "ann" }, [1, 2])).not.toBe(
      await requestDigest("open", { id: "ann" }, [2, 1])
    );
  });
});
