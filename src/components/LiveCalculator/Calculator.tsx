/**
 * The calculator itself: each key runs `press()` from `@act-root/calculator`
 * — a real `app.do(...)` on Act's in-memory store — and the view is read
 * back from the library: the stream's events (`query_array`, snapshots
 * included) and the state (`load`). Loaded lazily by ./index.tsx.
 */
import { InvariantError, SNAP_EVENT, ValidationError } from "@act-root/act";
import { app, Calculator as CalculatorState, display, expression, press, toKey, type Key } from "@act-root/calculator";
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import styles from "./styles.module.css";

type Row = { id: number; version: number; name: string; data: string; snapshot: boolean };
type View = {
  stream: string;
  display: string;
  expression: string;
  state: unknown;
  patches: number;
  snaps: number;
  events: Row[];
};

/** The keypad, row by row, with what a screen reader says for each key. */
const KEYPAD: { key: Key; label?: string; wide?: boolean; kind?: "op" | "equals" | "clear" }[][] = [
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

// One store for the whole page (Act's store port is a singleton): every
// calculator on it, and every Reset, gets a stream of its own.
let streams = 0;
const newStream = () => `calculator-${++streams}`;

async function read(stream: string): Promise<View> {
  const events = await app.query_array({ stream, with_snaps: true });
  const { state, patches, snaps } = await app.load(CalculatorState, stream);
  return {
    stream,
    display: display(state),
    expression: expression(state),
    state,
    patches,
    snaps,
    events: events.map((event) => {
      const snapshot = (event.name as string) === SNAP_EVENT;
      return {
        id: event.id,
        version: event.version,
        name: snapshot ? "snapshot" : String(event.name),
        data: JSON.stringify(event.data),
        snapshot,
      };
    }),
  };
}

/** A refused key, in words: the invariant's description or the validation message. */
function explain(error: unknown): string {
  if (error instanceof InvariantError) return `Refused: ${error.description}.`;
  if (error instanceof ValidationError) return `Invalid key: ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

export default function Calculator(): ReactNode {
  const [stream, setStream] = useState(newStream);
  const [view, setView] = useState<View | undefined>();
  const [message, setMessage] = useState("");
  // Key presses run one after the other, in the order they were made.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const log = useRef<HTMLElement>(null);

  useEffect(() => {
    let live = true;
    void read(stream).then((next) => live && setView(next));
    return () => {
      live = false;
    };
  }, [stream]);

  // Keep the newest event in sight.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect reads the DOM, not `view`; it must run each time an event is added.
  useEffect(() => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [view?.events.length]);

  const pressKey = useCallback(
    (key: Key) => {
      queue.current = queue.current.then(async () => {
        try {
          await press(key, stream);
          setMessage("");
        } catch (error) {
          setMessage(explain(error));
        }
        setView(await read(stream));
      });
    },
    [stream]
  );

  const reset = () => {
    queue.current = queue.current.then(() => {
      setMessage("");
      setView(undefined);
      setStream(newStream());
    });
  };

  // Typing works while focus is anywhere in the calculator: digits, + - * x /,
  // Enter or = for equals, Escape or c for clear.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const onButton = (event.target as HTMLElement).tagName === "BUTTON";
    let key: Key | undefined;
    if (event.key === "Enter") key = onButton ? undefined : "=";
    else if (event.key === "Escape") key = "C";
    else if (event.key.length === 1 && event.key !== " ") key = toKey(event.key);
    if (!key) return;
    event.preventDefault();
    pressKey(key);
  };

  const label = (key: Key, spoken?: string) => spoken ?? key;

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
          {KEYPAD.flat().map(({ key, label: spoken, kind }) => (
            <button
              key={key}
              type="button"
              className={[styles.key, kind && styles[kind]].filter(Boolean).join(" ")}
              aria-label={label(key, spoken)}
              onClick={() => pressKey(key)}
            >
              {key}
            </button>
          ))}
          <button
            type="button"
            className={`${styles.key} ${styles.clear}`}
            aria-label="Clear"
            onClick={() => pressKey("C")}
          >
            C
          </button>
          <button type="button" className={`${styles.key} ${styles.reset}`} onClick={reset}>
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
