/**
 * What the reader sees of the live calculator: display, keypad, status line,
 * the state and the event stream. It holds no library code, so the server
 * renders it and the page shows the calculator's real face — real buttons
 * with names — before the calculator's code has loaded; the same elements
 * stay once it has, so nothing moves and focus stays where it was.
 */
import { type KeyboardEvent, type ReactNode, useEffect, useRef } from "react";
import { typedKey } from "./keyboard";
import styles from "./styles.module.css";

/** The calculator as read from the store (see ./engine.ts). */
export type View = {
  display: string;
  expression: string;
  state: unknown;
  patches: number;
  snaps: number;
  events: { id: number; version: number; name: string; data: string; snapshot: boolean }[];
};

/** The keypad, row by row, with what a screen reader says for each key. */
const KEYPAD: { key: string; label?: string; kind?: "op" | "equals" }[][] = [
  [{ key: "7" }, { key: "8" }, { key: "9" }, { key: "÷", label: "Divide", kind: "op" }],
  [{ key: "4" }, { key: "5" }, { key: "6" }, { key: "×", label: "Times", kind: "op" }],
  [{ key: "1" }, { key: "2" }, { key: "3" }, { key: "−", label: "Minus", kind: "op" }],
  [
    { key: "0" },
    { key: ".", label: "Point" },
    { key: "=", label: "Equals", kind: "equals" },
    { key: "+", label: "Plus", kind: "op" },
  ],
];

type Props = {
  stream: string;
  /** Undefined until the code has read the stream: a new calculator. */
  view?: View;
  /** The status line: a refusal, or what the calculator is doing. */
  message: ReactNode;
  /** A key of the keypad, or a key as typed (see ./keyboard.ts). */
  onKey: (key: string) => void;
  onReset: () => void;
};

export default function CalculatorView({ stream, view, message, onKey, onReset }: Props): ReactNode {
  const log = useRef<HTMLElement>(null);

  // Keep the newest event in sight.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect reads the DOM, not `view`; it must run each time an event is added.
  useEffect(() => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [view?.events.length]);

  // Typing works while focus is anywhere in the calculator.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const key = typedKey(event);
    if (!key) return;
    event.preventDefault();
    onKey(key);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: key presses bubble up from the focused keypad button; the container itself takes no focus.
    <div className={styles.calculator} onKeyDown={onKeyDown}>
      <div className={styles.device}>
        <div className={styles.screen}>
          <div className={styles.expression} aria-hidden="true">
            {view?.expression ?? " "}
          </div>
          <output
            className={styles.display}
            aria-live="polite"
            aria-atomic="true"
            aria-label="Display"
            data-testid="calculator-display"
          >
            {view?.display ?? "0"}
          </output>
        </div>
        {/* biome-ignore lint/a11y/useSemanticElements: a keypad is a group of buttons, not a form; a fieldset would bring form semantics and borders. */}
        <div className={styles.keypad} role="group" aria-label="Keypad">
          {KEYPAD.flat().map(({ key, label, kind }) => (
            <button
              key={key}
              type="button"
              className={[styles.key, kind && styles[kind]].filter(Boolean).join(" ")}
              aria-label={label ?? key}
              onClick={() => onKey(key)}
            >
              {key}
            </button>
          ))}
          <button
            type="button"
            className={`${styles.key} ${styles.clear}`}
            aria-label="Clear"
            onClick={() => onKey("C")}
          >
            C
          </button>
          <button type="button" className={`${styles.key} ${styles.reset}`} onClick={onReset}>
            Reset (new stream)
          </button>
        </div>
        <p className={styles.message} role="status" aria-live="polite" data-testid="calculator-message">
          {message}
        </p>
        <p className={styles.hint}>
          Keyboard: digits, <kbd>+</kbd> <kbd>-</kbd> <kbd>*</kbd> <kbd>/</kbd>, <kbd>Enter</kbd> for =, <kbd>Esc</kbd>{" "}
          to clear — while focus is on the calculator.
        </p>
      </div>

      <div className={styles.inspector}>
        <h3 className={styles.heading}>State</h3>
        <p className={styles.meta}>
          Stream <code>{stream}</code> · {view?.patches ?? 0} event(s) since the last snapshot · {view?.snaps ?? 0}{" "}
          snapshot(s) read or written
        </p>
        <pre className={styles.state} data-testid="calculator-state">
          {JSON.stringify(view?.state ?? {}, null, 2)}
        </pre>

        <h3 className={styles.heading} id="live-calculator-events">
          Event stream
        </h3>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, and a scrollable region must be reachable by keyboard. */}
        <section className={styles.log} ref={log} tabIndex={0} aria-labelledby="live-calculator-events">
          <table className={styles.events} data-testid="calculator-events">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Event</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {view?.events.length ? (
                view.events.map((row) => (
                  <tr key={row.id} className={row.snapshot ? styles.snapshot : undefined}>
                    <td>{row.version}</td>
                    <td>{row.name}</td>
                    <td>
                      <code>{row.snapshot ? "(the state, stored as a snapshot)" : row.data}</code>
                    </td>
                  </tr>
                ))
              ) : (
                <tr>
                  <td colSpan={3}>No events yet: press a key.</td>
                </tr>
              )}
            </tbody>
          </table>
        </section>
      </div>
    </div>
  );
}
