/**
 * The calculator state: a pocket calculator whose every key press is an event.
 *
 * The stream of one calculator holds what was pressed (`DigitPressed`,
 * `OperatorPressed`, `EqualsPressed`, `Cleared`); the display is the fold of
 * those events. The arithmetic happens in the action handlers — they decide —
 * and the events carry the outcome, so the patch handlers only copy facts
 * into the state.
 *
 * Runs anywhere the library runs: no Node built-ins here, so the docs can
 * embed it in the browser.
 */
import { state, ZodEmpty } from "@act-root/act";
import { z } from "zod";

/** The keys that type a number. */
export const Digits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "."] as const;
/** The four operators, as printed on the keys. */
export const Operators = ["+", "−", "×", "÷"] as const;

export const Digit = z.enum(Digits);
export const Operator = z.enum(Operators);
export type Digit = z.infer<typeof Digit>;
export type Operator = z.infer<typeof Operator>;

/** The most digits an operand can hold; more are ignored, like on a real calculator. */
export const MAX_DIGITS = 12;

/** What the calculator remembers between key presses. */
export const CalculatorSchema = z.object({
  /** The first operand as typed ("" until a digit is pressed). */
  left: z.string(),
  /** The pending operator, if any. */
  operator: Operator.optional(),
  /** The second operand as typed ("" until a digit is pressed after the operator). */
  right: z.string(),
  /** Set by "=": the result on display. The next digit starts a new calculation. */
  result: z.number().optional(),
});
export type CalculatorState = z.infer<typeof CalculatorSchema>;

/** Which operand the next digit goes to. */
const operand = (s: CalculatorState) => (s.operator ? s.right : s.result !== undefined ? "" : s.left);

/** Appends a key to an operand: no leading zeros, "." on nothing reads "0.". */
const append = (typed: string, digit: Digit) =>
  digit === "." ? (typed === "" ? "0." : `${typed}.`) : typed === "0" ? digit : `${typed}${digit}`;

/** Applies an operator, rounded to 12 significant digits so 0.1 + 0.2 shows 0.3. */
export function compute(left: string, operator: Operator, right: string): number {
  const a = Number(left || "0");
  const b = Number(right || "0");
  const value = operator === "+" ? a + b : operator === "−" ? a - b : operator === "×" ? a * b : a / b;
  return Number(value.toPrecision(12));
}

/** What the calculator shows: the operand being typed, else the first one, else 0. */
export function display(s: CalculatorState): string {
  return s.right || s.left || "0";
}

/** The whole pending expression, e.g. `12 + 7`. */
export function expression(s: CalculatorState): string {
  return [s.left || "0", s.operator, s.right].filter(Boolean).join(" ");
}

/** Refuses "÷ 0": the second operand is zero and the operator is division. */
const noDivisionByZero = {
  description: "Cannot divide by zero",
  valid: (s: CalculatorState) => !(s.operator === "÷" && s.right !== "" && Number(s.right) === 0),
};

export const Calculator = state("Calculator", CalculatorSchema)
  .init(() => ({ left: "", right: "" }))
  .emits({
    DigitPressed: z.object({ digit: Digit }),
    OperatorPressed: z.object({ operator: Operator, result: z.number().optional() }),
    EqualsPressed: z.object({ result: z.number() }),
    Cleared: ZodEmpty,
  })
  .patch({
    // A digit extends the operand being typed; after "=" it starts over.
    DigitPressed: ({ data }, s) =>
      s.operator ? { right: append(s.right, data.digit) } : { left: append(operand(s), data.digit), result: undefined },
    // With a result (chained "1 + 2 +"), the result becomes the first operand.
    OperatorPressed: ({ data }, s) => ({
      left: data.result !== undefined ? String(data.result) : s.left || "0",
      operator: data.operator,
      right: "",
      result: undefined,
    }),
    // undefined removes a key: the operator is gone, the result stays on display.
    EqualsPressed: ({ data }) => ({
      left: String(data.result),
      operator: undefined,
      right: "",
      result: data.result,
    }),
    Cleared: () => ({ left: "", operator: undefined, right: "", result: undefined }),
  })
  .on("PressDigit", z.object({ digit: Digit }))
  .emit(({ digit }, { state }) => {
    const typed = operand(state);
    // A second "." or a thirteenth digit is ignored: nothing is emitted.
    if (digit === "." && typed.includes(".")) return undefined;
    if (typed.replace(/[^0-9]/g, "").length >= MAX_DIGITS) return undefined;
    return ["DigitPressed", { digit }];
  })
  .on("PressOperator", z.object({ operator: Operator }))
  .given([noDivisionByZero])
  .emit(({ operator }, { state }) =>
    // "1 + 2 ×" computes 1 + 2 first, as a pocket calculator does.
    state.operator && state.right !== ""
      ? ["OperatorPressed", { operator, result: compute(state.left, state.operator, state.right) }]
      : ["OperatorPressed", { operator }]
  )
  .on("PressEquals", ZodEmpty)
  .given([noDivisionByZero])
  .emit((_, { state }) =>
    // "=" with nothing pending does nothing.
    state.operator && state.right !== ""
      ? ["EqualsPressed", { result: compute(state.left, state.operator, state.right) }]
      : undefined
  )
  .on("Clear", ZodEmpty)
  .given([
    {
      description: "Calculator must not be clean",
      valid: (s) => s.left !== "" || s.right !== "" || s.operator !== undefined || s.result !== undefined,
    },
  ])
  .emit(() => ["Cleared", {}])
  // Every 10 events, commit the state so a load reads only the tail.
  .snap((snapshot) => snapshot.patches >= 10)
  .build();
