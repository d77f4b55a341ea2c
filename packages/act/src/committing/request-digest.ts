import { nodeCrypto } from "../core/node-crypto.js";

/**
 * What an idempotent request asked for, as the store keeps it with its key:
 * the action, the actor's id and the payload, hashed (SHA-256 over a JSON
 * form with object keys sorted, so the same payload gives the same digest
 * whatever order its keys came in). A retry of the same request matches
 * it; a key reused for another action, by another actor or with another
 * payload does not, and gets an error instead of someone else's outcome.
 *
 * A hash rather than the request itself, so the keys table holds no
 * payload. Hashed by `node:crypto` where the runtime has it (synchronous, a
 * few microseconds) and by Web Crypto elsewhere, so the core still runs in a
 * browser: both give the same digest, and keys stored by either match.
 */
export async function requestDigest(action: string, actor: { readonly id: string }, payload: unknown): Promise<string> {
  const text = JSON.stringify([action, actor.id, payload ?? null], sortKeys);
  return `sha256:${await sha256Hex(text, nodeCrypto())}`;
}

/**
 * SHA-256 of `text`'s UTF-8 bytes, in hex: by `crypto` when given, by Web
 * Crypto otherwise.
 */
export async function sha256Hex(text: string, crypto?: { createHash: (algorithm: string) => Hash }): Promise<string> {
  if (crypto) return crypto.createHash("sha256").update(text, "utf8").digest("hex");
  const bytes = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(bytes)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The part of `node:crypto`'s `Hash` the digest uses. */
type Hash = { update(text: string, encoding: "utf8"): Hash; digest(encoding: "hex"): string };

/** `JSON.stringify` replacer: plain objects with their keys in order. */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}
