/**
 * AES-GCM 256 through WebCrypto (`globalThis.crypto.subtle`), so the core
 * still runs in a browser: new keys, and a value sealed into, or opened
 * from, the text a personal field stores.
 *
 * A sealed value is `act-pd:1:<key version>:<subject>:<iv>:<ciphertext>`
 * (subject, iv and ciphertext in base64url): it names the key that opens it,
 * so reading needs nothing but the store's keys. The ciphertext holds the
 * value's JSON text and GCM's 16-byte tag; the event name and the field are
 * its additional data, so a value moved to another field fails to open.
 */
import { PersonalDataError } from "../core/errors.js";

const PREFIX = "act-pd:1:";
const text = new TextEncoder();
const words = new TextDecoder();

/** Bytes as base64 (the standard alphabet: what the stores keep for keys). */
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromUrl = (part: string) => fromBase64(part.replace(/-/g, "+").replace(/_/g, "/"));

/** A new random AES-256 key, in base64. */
export function freshKey(): string {
  return toBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** The WebCrypto key of a stored base64 key (not extractable). */
export function importKey(base64: string): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey("raw", fromBase64(base64), "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Whether a stored value is a sealed one. */
export function isSealed(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(PREFIX);
}

/** What a sealed value names: the key (subject and version), the iv and the ciphertext. */
export type Envelope = { subject: string; version: number; iv: Uint8Array<ArrayBuffer>; data: Uint8Array<ArrayBuffer> };

/**
 * Parses a sealed value.
 *
 * @throws {@link PersonalDataError} (`malformed`) when it is not one, naming `where`
 */
export function envelope(value: string, where: string): Envelope {
  const parts = value.slice(PREFIX.length).split(":");
  const version = Number(parts[0]);
  try {
    if (parts.length !== 4 || !Number.isSafeInteger(version) || version < 1) throw new Error("bad layout");
    return { version, subject: words.decode(fromUrl(parts[1])), iv: fromUrl(parts[2]), data: fromUrl(parts[3]) };
  } catch (error) {
    throw new PersonalDataError(
      "malformed",
      where,
      "the stored value is marked as encrypted but cannot be parsed",
      error
    );
  }
}

/** Encrypts `value` (as JSON) with a fresh 96-bit iv. */
export async function seal(
  key: CryptoKey,
  subject: string,
  version: number,
  value: unknown,
  additional: string
): Promise<string> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const sealed = await globalThis.crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: text.encode(additional) },
    key,
    text.encode(JSON.stringify(value))
  );
  return `${PREFIX}${version}:${url(text.encode(subject))}:${url(iv)}:${url(new Uint8Array(sealed))}`;
}

/**
 * Decrypts a parsed sealed value.
 *
 * @throws {@link PersonalDataError} (`tampered`) when authentication fails, naming `where`
 */
export async function open(key: CryptoKey, sealed: Envelope, additional: string, where: string): Promise<unknown> {
  let plain: ArrayBuffer;
  try {
    plain = await globalThis.crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.iv, additionalData: text.encode(additional) },
      key,
      sealed.data
    );
  } catch (error) {
    throw new PersonalDataError(
      "tampered",
      where,
      `the encrypted value failed authentication (changed in the store, or sealed with another key than version ${sealed.version} of its subject's)`,
      error
    );
  }
  return JSON.parse(words.decode(plain));
}
