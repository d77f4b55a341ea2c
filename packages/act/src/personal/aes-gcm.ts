/**
 * AES-GCM 256 over small values, by one of two engines that produce the
 * same bytes (the ciphertext, then the 16-byte tag):
 *
 * - `node:crypto`, synchronous, where the runtime offers it (see
 *   `nodeCrypto`): a load opens one value per event, thousands, and a
 *   WebCrypto call is a thread-pool job each.
 * - WebCrypto (`globalThis.crypto.subtle`) everywhere else, browsers included.
 */
import type { KeyObject } from "node:crypto";
import { nodeCrypto } from "../core/node-crypto.js";

type NodeCrypto = typeof import("node:crypto");

/** A key ready for one engine. */
export type AesKey = { readonly web?: CryptoKey; readonly node?: KeyObject };

/** Encrypts and decrypts with a key of its own making. */
export type AesEngine = {
  /** The engine's key of raw key bytes. */
  key(raw: Uint8Array<ArrayBuffer>): Promise<AesKey>;
  /** The ciphertext and tag of `plain`. */
  encrypt(
    key: AesKey,
    iv: Uint8Array<ArrayBuffer>,
    plain: Uint8Array<ArrayBuffer>,
    additional: Uint8Array<ArrayBuffer>
  ): Promise<Uint8Array>;
  /** The plaintext; rejects when authentication fails. */
  decrypt(
    key: AesKey,
    iv: Uint8Array<ArrayBuffer>,
    sealed: Uint8Array<ArrayBuffer>,
    additional: Uint8Array<ArrayBuffer>
  ): Promise<Uint8Array>;
  /**
   * The plaintext at once, for an engine that has it synchronously: a load
   * opens thousands of values, and a promise each costs more than the
   * decryption of a short one. Throws when authentication fails.
   */
  decryptNow?(
    key: AesKey,
    iv: Uint8Array<ArrayBuffer>,
    sealed: Uint8Array<ArrayBuffer>,
    additional: Uint8Array<ArrayBuffer>
  ): Uint8Array;
};

const TAG = 16;

/** WebCrypto: what every runtime has. */
export const webEngine: AesEngine = {
  async key(raw) {
    return { web: await globalThis.crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]) };
  },
  async encrypt(key, iv, plain, additionalData) {
    return new Uint8Array(
      await globalThis.crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, key.web!, plain)
    );
  },
  async decrypt(key, iv, sealed, additionalData) {
    return new Uint8Array(
      await globalThis.crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData }, key.web!, sealed)
    );
  },
};

/** `node:crypto`, synchronous (under a promise, and without one for `decryptNow`): no thread-pool round trip per value. */
export function nodeEngine(crypto: NodeCrypto): AesEngine {
  const decryptNow: NonNullable<AesEngine["decryptNow"]> = (key, iv, sealed, additional) => {
    if (sealed.length < TAG) throw new Error("too short to hold a tag");
    const decipher = crypto.createDecipheriv("aes-256-gcm", key.node!, iv);
    decipher.setAAD(additional);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
    const head = decipher.update(sealed.subarray(0, sealed.length - TAG));
    const tail = decipher.final(); // throws when the tag does not match
    if (!tail.length) return head;
    const out = new Uint8Array(head.length + tail.length);
    out.set(head);
    out.set(tail, head.length);
    return out;
  };
  return {
    async key(raw) {
      return { node: crypto.createSecretKey(raw) };
    },
    async encrypt(key, iv, plain, additional) {
      const cipher = crypto.createCipheriv("aes-256-gcm", key.node!, iv);
      cipher.setAAD(additional);
      const head = cipher.update(plain);
      const tail = cipher.final();
      const tag = cipher.getAuthTag();
      const out = new Uint8Array(head.length + tail.length + tag.length);
      out.set(head);
      out.set(tail, head.length);
      out.set(tag, head.length + tail.length);
      return out;
    },
    async decrypt(key, iv, sealed, additional) {
      return decryptNow(key, iv, sealed, additional);
    },
    decryptNow,
  };
}

let chosen: AesEngine | undefined;

/** The engine of this runtime, chosen at the first call. */
export function engine(): AesEngine {
  if (!chosen) {
    const crypto = nodeCrypto();
    chosen = crypto?.createDecipheriv ? nodeEngine(crypto) : webEngine;
  }
  return chosen;
}
