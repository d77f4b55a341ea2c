/**
 * The two AES-GCM engines personal fields are sealed with: what one seals
 * the other opens (a store written by a server reads in a browser, and the
 * other way round), and both refuse a changed value or other additional
 * data.
 */
import * as crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { type AesEngine, engine, nodeEngine, webEngine } from "../../src/personal/aes-gcm.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const raw = crypto.getRandomValues(new Uint8Array(32));
const iv = crypto.getRandomValues(new Uint8Array(12));
const engines: Array<[string, AesEngine]> = [
  ["node:crypto", nodeEngine(crypto)],
  ["WebCrypto", webEngine],
];

describe("AES-GCM engines", () => {
  it("uses node:crypto where the runtime offers it", () => {
    expect(engine()).not.toBe(webEngine);
  });

  for (const [sealer, writer] of engines)
    for (const [opener, reader] of engines)
      it(`opens with ${opener} what ${sealer} sealed, and refuses it changed or bound elsewhere`, async () => {
        const sealed = await writer.encrypt(
          await writer.key(raw),
          iv,
          bytes('{"email":"ann@example.com"}'),
          bytes("a")
        );
        const key = await reader.key(raw);
        const plain = await reader.decrypt(key, iv, new Uint8Array(sealed), bytes("a"));
        expect(new TextDecoder().decode(plain)).toBe('{"email":"ann@example.com"}');
        await expect(reader.decrypt(key, iv, new Uint8Array(sealed), bytes("b"))).rejects.toThrow();
        const changed = new Uint8Array(sealed);
        changed[0] ^= 1;
        await expect(reader.decrypt(key, iv, changed, bytes("a"))).rejects.toThrow();
        await expect(reader.decrypt(key, iv, changed.subarray(0, 8), bytes("a"))).rejects.toThrow();
      });
});
