/**
 * Opening the personal fields of events read from the store: a page of
 * sealed values at a time, the keys the page names read in one call of
 * `Store.keys` and imported once per read, and the page's values
 * decrypted one after the other where the engine is synchronous
 * (`node:crypto`), else concurrently (WebCrypto's calls overlap on its
 * thread pool).
 */
import { PersonalDataError } from "../core/errors.js";
import { FORGOTTEN } from "../core/forgotten.js";
import { SNAP_EVENT } from "../core/schemas.js";
import type { Committed, Schemas } from "../types/action.js";
import type { PersonalFields, SubjectKeyStore } from "../types/personal.js";
import type { AesKey } from "./aes-gcm.js";
import {
  additionalBytes,
  bound,
  boundField,
  companionOf,
  type Envelope,
  envelope,
  importKey,
  isSealed,
  open,
  openNow,
} from "./cipher.js";

/** The personal fields of each event that has some, by event name. */
export type PersonalRegister = ReadonlyMap<string, PersonalFields<any>>;

/** Sealed values opened per page: enough to keep WebCrypto busy, few enough to bound what waits in memory. */
const PAGE = 1_000;

/** One sealed value of an event read: where it is (for errors only), what opens it, its key's id, and the fields it fills. */
type Sealed = {
  at: number;
  envelope: Envelope;
  key: string;
  additional: string;
  fields: string[];
  where: () => string;
};

/** A key's id in the maps of one read: subject and version. */
const keyId = (subject: string, version: number) => `${subject}\u0000${version}`;

const fieldOf = (event: Committed<Schemas, string>, field: string) => () =>
  `field "${field}" of event "${event.name}" #${event.id} on stream "${event.stream}"`;

/** The sealed values of one event (none when it has no personal fields or they were written in clear). */
function sealedOf(
  event: Committed<Schemas, string>,
  at: number,
  personal: PersonalRegister,
  subjects: Map<string, string>
): Sealed[] {
  const data = event.data as Record<string, unknown> | undefined;
  if (event.name === SNAP_EVENT) {
    const state = data?.state;
    if (!isSealed(state)) return [];
    const where = () => `snapshot #${event.id} on stream "${event.stream}"`;
    const sealed = envelope(state, where, subjects);
    const additional = sealed.format === 1 ? boundField(SNAP_EVENT, "state") : bound(event.stream, SNAP_EVENT);
    const key = keyId(sealed.subject, sealed.version);
    return [{ at, envelope: sealed, key, additional, fields: ["state"], where }];
  }
  if (!data || !personal.has(event.name)) return [];
  const found: Sealed[] = [];
  const companions = new Map<string, string[]>();
  // Every sealed field, not only those marked today: a field unmarked since still opens.
  for (const [field, value] of Object.entries(data)) {
    if (!isSealed(value)) continue;
    const carrier = companionOf(value);
    if (carrier !== undefined) {
      companions.set(carrier, [...(companions.get(carrier) ?? []), field]);
      continue;
    }
    const where = fieldOf(event, field);
    const sealed = envelope(value, where, subjects);
    const additional = sealed.format === 1 ? boundField(event.name, field) : bound(event.stream, event.name);
    found.push({
      at,
      envelope: sealed,
      key: keyId(sealed.subject, sealed.version),
      additional,
      fields: [field],
      where,
    });
  }
  if (!companions.size) return found;
  for (const [carrier, fields] of companions) {
    const holder = found.find((s) => s.fields[0] === carrier && s.envelope.format === 2);
    if (!holder)
      throw new PersonalDataError(
        "malformed",
        fieldOf(event, fields[0])(),
        `the stored value says field "${carrier}" holds it sealed, but that field holds no sealed value`
      );
    holder.fields.push(...fields);
  }
  return found;
}

/** The plaintext of each field one sealed value fills. */
function filled(sealed: Sealed, plain: unknown): Array<[string, unknown]> {
  if (plain === FORGOTTEN) return sealed.fields.map((field) => [field, FORGOTTEN]);
  if (sealed.envelope.format === 1) return [[sealed.fields[0], plain]];
  const values = plain as Record<string, unknown>;
  const missing = sealed.fields.find((field) => !Object.hasOwn(values, field));
  if (missing !== undefined)
    throw new PersonalDataError(
      "tampered",
      sealed.where(),
      `field "${missing}" says its value is sealed here, but the sealed values do not hold it`
    );
  return Object.entries(values);
}

/**
 * Replaces the sealed values in `read` with their plaintext, or with
 * {@link FORGOTTEN} when their key was destroyed. Each page of sealed
 * values reads the keys it names (and no read before it did) in one call;
 * the imported keys live only as long as this call, so a key destroyed by
 * `forget` opens nothing afterwards. Where the engine decrypts
 * synchronously (`node:crypto`) the values are opened one after the other
 * without a promise each; elsewhere (WebCrypto) a page's decryptions overlap.
 *
 * @param read - the events read, replaced in place
 * @param personal - the personal fields of each event that has some
 * @param keyStore - the store's keys (asked for only when something is sealed)
 */
export async function openEvents<E extends Schemas>(
  read: Committed<E, keyof E>[],
  personal: PersonalRegister,
  keyStore: (where: string) => SubjectKeyStore
): Promise<void> {
  const events = read as unknown as Committed<Schemas, string>[];
  // Decoded subjects and additional data's bytes, per read: a stream's values repeat them.
  const subjects = new Map<string, string>();
  const sealed = events.flatMap((event, at) => sealedOf(event, at, personal, subjects));
  if (!sealed.length) return;
  const keys = new Map<string, AesKey | null>();
  const additional = new Map<string, Uint8Array<ArrayBuffer>>();
  const bytes = (text: string) => {
    const found = additional.get(text);
    if (found) return found;
    const encoded = additionalBytes(text);
    additional.set(text, encoded);
    return encoded;
  };
  const now = openNow();
  const changed = new Map<number, Record<string, unknown>>();
  for (let start = 0; start < sealed.length; start += PAGE) {
    const page = sealed.slice(start, start + PAGE);
    const wanted = new Map<string, { subject: string; version: number }>();
    for (const value of page)
      if (!keys.has(value.key))
        wanted.set(value.key, { subject: value.envelope.subject, version: value.envelope.version });
    if (wanted.size) {
      const rows = await keyStore(page[0].where()).read([...wanted.values()]);
      const imported = await Promise.all(rows.map((row) => (row.key === null ? null : importKey(row.key))));
      for (const [i, row] of rows.entries()) keys.set(keyId(row.subject, row.version), imported[i]);
    }
    const keyOf = (value: Sealed) => {
      const key = keys.get(value.key);
      if (key === undefined)
        throw new PersonalDataError(
          "missing-key",
          value.where(),
          `the store has no key version ${value.envelope.version} of its data subject (were the events copied without the store's keys?)`
        );
      return key;
    };
    const opened = now
      ? page.map((value) => {
          const key = keyOf(value);
          return key === null ? FORGOTTEN : now(key, value.envelope, bytes(value.additional), value.where);
        })
      : await Promise.all(
          page.map((value) => {
            const key = keyOf(value);
            return key === null ? FORGOTTEN : open(key, value.envelope, bytes(value.additional), value.where);
          })
        );
    page.forEach((value, i) => {
      const data = changed.get(value.at) ?? { ...(events[value.at].data as Record<string, unknown>) };
      for (const [field, plain] of filled(value, opened[i])) data[field] = plain;
      changed.set(value.at, data);
    });
  }
  for (const [at, data] of changed) read[at] = Object.freeze({ ...read[at], data: Object.freeze(data) as E[keyof E] });
}
