/**
 * One app's personal data: which events have personal fields (from its
 * registry), the sealing view of each store it uses, and `forget`/`rotate`.
 */
import { PersonalDataError } from "../core/errors.js";
import { checkName } from "../core/inputs.js";
import type { Forgotten, PersonalFields, SubjectKeyStore } from "../types/personal.js";
import type { Store } from "../types/ports.js";
import type { EventRegister } from "../types/reaction.js";
import type { State } from "../types/action.js";
import { freshKey } from "./cipher.js";
import { SealedStore } from "./sealed-store.js";

export class AppPersonalData {
  private readonly register = new Map<string, PersonalFields<any>>();
  /** The versions of the states with personal fields, whose snapshots hold them. */
  private readonly snapshots = new Set<string>();
  /** One sealing view per store, so the app's snapshot cache sees one store. */
  private readonly views = new WeakMap<Store, SealedStore>();

  /**
   * @param events - the app's events, with their personal fields
   * @param states - the app's states: the snapshots of those with personal fields are sealed whole
   * @param forgotten - clears what the app holds in memory of a subject forgotten (its snapshot cache)
   */
  constructor(
    events: EventRegister<any, any>,
    states: Iterable<State<any, any, any>>,
    private readonly forgotten: () => void
  ) {
    for (const [name, { personal }] of Object.entries(events)) if (personal) this.register.set(name, personal);
    for (const state of states) if (Object.keys(state.personal ?? {}).length) this.snapshots.add(state.version);
  }

  /** The store as the app uses it: sealing personal fields when the app has some, else the store itself. */
  view(store: Store): Store {
    if (!this.register.size) return store;
    let view = this.views.get(store);
    if (!view) {
      view = new SealedStore(store, this.register, this.snapshots);
      this.views.set(store, view);
    }
    return view;
  }

  private keys(store: Store, subject: string): SubjectKeyStore {
    if (!store.keys)
      throw new PersonalDataError(
        "no-key-store",
        `data subject "${subject}"`,
        `${store.constructor?.name ?? "the store"} keeps no subject keys (Store.keys)`
      );
    return store.keys;
  }

  /** Destroys every key of `subject` and empties the snapshots of its streams. */
  async forget(store: Store, subject: string): Promise<Forgotten> {
    checkName("data subject", subject);
    const done = await this.keys(store, subject).forget(subject);
    this.views.get(store)?.forgetKeys();
    this.forgotten();
    if (!done)
      throw new PersonalDataError(
        "unknown-subject",
        `data subject "${subject}"`,
        "the store has no key for this subject: no personal data of theirs was ever written here (check the id)"
      );
    return done;
  }

  /** Adds a new key version for `subject`'s next writes. */
  async rotate(store: Store, subject: string): Promise<number> {
    checkName("data subject", subject);
    const version = await this.keys(store, subject).rotate(subject, freshKey());
    this.views.get(store)?.forgetKeys();
    if (version === undefined)
      throw new PersonalDataError(
        "unknown-subject",
        `data subject "${subject}"`,
        "the store has no live key for this subject: none was ever written, or the subject was forgotten"
      );
    return version;
  }
}
