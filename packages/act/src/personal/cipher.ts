/**
 * AES-GCM 256 (by the runtime's engine, see `aes-gcm.ts`; WebCrypto in a
 * browser): new keys, and the personal values of one event sealed into, or
 * opened from, the text its fields store.
 *
 * The personal fields of an event are sealed together, as one ciphertext:
 * a load opens one value per event, not one per field. The first personal
 * field present holds `act-pd:2:<key version>:<subject>:<iv>:<ciphertext>`
 * (subject, iv and ciphertext in base64url) and each other one holds
 * `act-pd:2:in:<that field>`. The sealed value names the key that opens it,
 * so reading needs nothing but the store's keys. The ciphertext holds the
 * JSON of the fields' values by field name and GCM's 16-byte tag; the
 * stream and the event name are its additional data, so a value copied into
 * another event fails to open.
 *
 * Events written before sealed each field on its own (`act-pd:1:`, the
 * event name and the field as additional data); they still open.
 */
import { PersonalDataError } from "../core/errors.js";
import { type AesKey, engine } from "./aes-gcm.js";

const MARK = "act-pd:";
const V1 = "act-pd:1:";
const V2 = "act-pd:2:";
const COMPANION = `${V2}in:`;
const text = new TextEncoder();
const words = new TextDecoder();

/** Bytes as base64 (the standard alphabet: what the stores keep for keys). */
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** Each character's 6 bits in either base64 alphabet (standard and URL), 64 for any other character. */
const DIGITS = new Uint8Array(128).fill(64);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"].entries())
  DIGITS[c.charCodeAt(0)] = i;
DIGITS["+".charCodeAt(0)] = DIGITS["-".charCodeAt(0)] = 62;
DIGITS["/".charCodeAt(0)] = DIGITS["_".charCodeAt(0)] = 63;

/**
 * The bytes of base64 text in either alphabet, padded or not. Decoded here
 * rather than by `atob` and a copy: a load decodes three parts of every
 * sealed value it opens.
 *
 * @throws Error when the text is not base64
 */
function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--; // "="
  const left = end % 4;
  if (left === 1) throw new Error("not base64: a partial character");
  const bytes = new Uint8Array((end * 3) >> 2);
  // Every character code, or'ed: one past 127 is outside the table. Every digit, or'ed: 64 is not a digit.
  let codes = 0;
  let bad = 0;
  let at = 0;
  let i = 0;
  for (; i < end; i += 4) {
    const w = text.charCodeAt(i);
    const x = text.charCodeAt(i + 1);
    const y = i + 2 < end ? text.charCodeAt(i + 2) : 65; // "A": no bits
    const z = i + 3 < end ? text.charCodeAt(i + 3) : 65;
    codes |= w | x | y | z;
    const a = DIGITS[w & 127];
    const b = DIGITS[x & 127];
    const c = DIGITS[y & 127];
    const d = DIGITS[z & 127];
    bad |= a | b | c | d;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[at++] = n >> 16;
    if (at < bytes.length) bytes[at++] = (n >> 8) & 255;
    if (at < bytes.length) bytes[at++] = n & 255;
  }
  if (codes > 127 || bad & 64) throw new Error("not base64: a character outside the alphabet");
  return bytes;
}

const url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** A new random AES-256 key, in base64. */
export function freshKey(): string {
  return toBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** The engine's key of a stored base64 key. */
export function importKey(base64: string): Promise<AesKey> {
  return engine().key(fromBase64(base64));
}

/** Whether a stored value is sealed (or stands for a value sealed with another field of its event). */
export function isSealed(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(MARK);
}

/** The field holding the sealed values of a field that holds `act-pd:2:in:<field>`, if it does. */
export function companionOf(value: string): string | undefined {
  return value.startsWith(COMPANION) ? value.slice(COMPANION.length) : undefined;
}

/** What a sealed value names: its format, the key (subject and version), the iv and the ciphertext. */
export type Envelope = {
  format: 1 | 2;
  subject: string;
  version: number;
  iv: Uint8Array<ArrayBuffer>;
  data: Uint8Array<ArrayBuffer>;
};

/**
 * Parses a sealed value (either format).
 *
 * @param subjects - subjects decoded before in the same read, by their stored text (a stream's values name one)
 * @throws {@link PersonalDataError} (`malformed`) when it is not one, naming where it is (`where`, called only then)
 */
export function envelope(value: string, where: () => string, subjects?: Map<string, string>): Envelope {
  const format = value.startsWith(V2) ? 2 : value.startsWith(V1) ? 1 : 0;
  const parts = value.slice(V1.length).split(":");
  const version = Number(parts[0]);
  try {
    if (!format || parts.length !== 4 || !Number.isSafeInteger(version) || version < 1) throw new Error("bad layout");
    let subject = subjects?.get(parts[1]);
    if (subject === undefined) {
      subject = words.decode(fromBase64(parts[1]));
      subjects?.set(parts[1], subject);
    }
    return { format, version, subject, iv: fromBase64(parts[2]), data: fromBase64(parts[3]) };
  } catch (error) {
    throw new PersonalDataError(
      "malformed",
      where(),
      "the stored value is marked as encrypted but cannot be parsed",
      error
    );
  }
}

/** The additional data of an event's sealed values: its stream and name. */
export const bound = (stream: string, event: string) => `${V2}${stream}\u0000${event}`;

/** The additional data of a value sealed on its own (the first format): its event's name and field. */
export const boundField = (event: string, field: string) => `${event}\u0000${field}`;

/**
 * Encrypts `values` (the personal fields of one event, by name, as JSON)
 * with a fresh 96-bit iv.
 */
export async function seal(
  key: AesKey,
  subject: string,
  version: number,
  values: Record<string, unknown>,
  additional: string
): Promise<string> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const sealed = await engine().encrypt(key, iv, text.encode(JSON.stringify(values)), text.encode(additional));
  return `${V2}${version}:${url(text.encode(subject))}:${url(iv)}:${url(sealed)}`;
}

/** What each other sealed field of an event holds: the field that holds the sealed text. */
export const companion = (field: string) => `${COMPANION}${field}`;

/**
 * Decrypts a parsed sealed value: the values by field (format 2) or the one
 * value (format 1). `additional` is the text of {@link bound} (or
 * {@link boundField}) as bytes.
 *
 * @throws {@link PersonalDataError} (`tampered`) when authentication fails, naming where it is (`where`, called only then)
 */
export async function open(
  key: AesKey,
  sealed: Envelope,
  additional: Uint8Array<ArrayBuffer>,
  where: () => string
): Promise<unknown> {
  let plain: Uint8Array;
  try {
    plain = await engine().decrypt(key, sealed.iv, sealed.data, additional);
  } catch (error) {
    throw tampered(sealed, where, error);
  }
  return JSON.parse(words.decode(plain));
}

/**
 * {@link open} at once, when the runtime's engine decrypts synchronously
 * (`node:crypto`); `undefined` elsewhere.
 */
export function openNow(): ((...args: Parameters<typeof open>) => unknown) | undefined {
  const decrypt = engine().decryptNow;
  if (!decrypt) return undefined;
  return (key, sealed, additional, where) => {
    let plain: Uint8Array;
    try {
      plain = decrypt(key, sealed.iv, sealed.data, additional);
    } catch (error) {
      throw tampered(sealed, where, error);
    }
    return JSON.parse(words.decode(plain));
  };
}

/** The value's authentication failed. */
const tampered = (sealed: Envelope, where: () => string, error: unknown) =>
  new PersonalDataError(
    "tampered",
    where(),
    `the encrypted value failed authentication (changed in the store, copied from another event, or sealed with another key than version ${sealed.version} of its subject's)`,
    error
  );

/** The bytes of a value's additional data (its text: see {@link bound}). */
export const additionalBytes = (additional: string) => text.encode(additional);
