/**
 * What a personal field of a forgotten data subject reads as: its value is
 * replaced by this string once the subject's keys are destroyed
 * (`app.forget`). Every field marked personal must accept it — a plain
 * `z.string()` does; `state().personal()` refuses a field whose schema does
 * not, and `forgettable(schema)` widens one that would not.
 *
 * @experimental
 * @see [Personal data](/docs/guides/personal-data#the-placeholder) — what reads return after forgetting.
 * @example
 * ```ts
 * const { state: ticket } = await app.load(Ticket, "ticket-1"); // its title marked personal
 * const shown = ticket.title === FORGOTTEN ? "(erased)" : ticket.title;
 * ```
 */
export const FORGOTTEN = "[forgotten]";
