/**
 * The calculator app: the {@link Calculator} state registered with `act()`,
 * and `press`, which turns a key of the keypad into the right action.
 *
 * No Node built-ins: the docs run this file in the browser.
 */
import { act, type Actor, type Snapshot } from "@act-root/act";
import { Calculator, type CalculatorState, Digits, type Digit, type Operator, Operators } from "./calculator.js";

export * from "./calculator.js";

/** A key of the keypad: a digit, ".", an operator, "=" or "C" (clear). */
export type Key = Digit | Operator | "=" | "C";

/** Every key, in keypad order. */
export const Keys: readonly Key[] = [...Digits, ...Operators, "=", "C"];

/** Keyboard-friendly spellings of the keys. */
const aliases: Record<string, Key> = {
  "-": "−",
  "*": "×",
  x: "×",
  X: "×",
  "/": "÷",
  ":": "÷",
  c: "C",
  AC: "C",
  ac: "C",
};

/** Reads a key from what a person types ("*" or "x" for ×, "/" for ÷, "c" for clear). */
export function toKey(text: string): Key | undefined {
  if ((Keys as readonly string[]).includes(text)) return text as Key;
  return aliases[text];
}

/** The app: one state, no reactions. */
export const app = act().with(Calculator).build();

/**
 * Presses a key on the calculator of `stream`.
 *
 * @returns the snapshots after the key (the current one when the key did nothing)
 * @throws InvariantError for "÷ 0 =" or "C" on a clean calculator
 */
export function press(
  key: Key,
  stream: string,
  actor: Actor = { id: "user", name: "User" }
): Promise<Snapshot<CalculatorState, Record<string, any>>[]> {
  const target = { stream, actor };
  if (key === "=") return app.do("PressEquals", target, {});
  if (key === "C") return app.do("Clear", target, {});
  if ((Operators as readonly string[]).includes(key))
    return app.do("PressOperator", target, { operator: key as Operator });
  return app.do("PressDigit", target, { digit: key as Digit });
}
