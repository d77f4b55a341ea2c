/**
 * The live calculator's state, and its key presses run in the order they
 * were made — including those made before the calculator's code had
 * arrived.
 *
 * The code (./engine.ts: the real library, zod and the example's state) is
 * fetched by `start()`, which the reader's first interaction with the
 * calculator calls, or by the first press. Presses wait in a list until it
 * has arrived and then run one after the other; if it fails to load they
 * stay in the list, and `retry()` fetches it again and runs them.
 */
import { useState } from "react";
import type { View } from "./CalculatorView";

type Engine = typeof import("./engine");

/** Where the calculator's code is. */
export type Code = "not requested" | "loading" | "loaded" | "failed";

/** A press: a key (as on the keypad, or as typed) or Reset. */
const RESET = Symbol("reset");
type Press = string | typeof RESET;

// One store for the whole page (the engine's module holds it), so each
// Reset starts a stream of its own. The page has a single calculator.
const streamName = (n: number) => `calculator-${n}`;

export type Calculator = {
  stream: string;
  /** Undefined until the code has read the stream. */
  view?: View;
  /** The last refusal, in words; empty after a key that was taken. */
  message: string;
  code: Code;
  /** True while presses wait for the code. */
  waiting: boolean;
  press: (key: string) => void;
  reset: () => void;
  /** On first use: fetches the code and shows the calculator as the store reads it (once; after a failure, `retry`). */
  start: () => void;
  /** Fetches the code again after a failure, then runs the waiting presses. */
  retry: () => void;
};

export function useCalculator(): Calculator {
  const [stream, setStream] = useState(1);
  const [view, setView] = useState<View>();
  const [message, setMessage] = useState("");
  const [code, setCode] = useState<Code>("not requested");
  const [waiting, setWaiting] = useState(false);

  // Created once per calculator; it only calls state setters, which React
  // keeps stable, so the functions never go stale.
  const [actions] = useState(() => {
    let engine: Promise<Engine> | undefined;
    // Whether the code was ever asked for: after a failure, only Retry or a
    // key press asks again — not the pointer moving to the Retry button.
    let requested = false;
    let running = false;
    let current = 1;
    const presses: Press[] = [];

    function load(): Promise<Engine> {
      if (!engine) {
        requested = true;
        setCode("loading");
        engine = import(/* webpackChunkName: "live-calculator" */ "./engine").then(
          (module) => {
            setCode("loaded");
            return module;
          },
          (error: unknown) => {
            // Forget the failed attempt, so that Retry asks again.
            engine = undefined;
            console.warn(`The live calculator's code failed to load: ${error}`);
            setCode("failed");
            throw error;
          }
        );
      }
      return engine;
    }

    async function apply(library: Engine, press: Press) {
      if (press === RESET) {
        current += 1;
        setStream(current);
        setMessage("");
        return;
      }
      const key = library.toKey(press);
      if (!key) return;
      try {
        await library.press(key, streamName(current));
        setMessage("");
      } catch (error) {
        setMessage(library.explain(error));
      }
    }

    // Runs the waiting presses, one at a time, then shows the stream. A
    // press made meanwhile joins the list this run is working through.
    async function run() {
      if (running) return;
      running = true;
      try {
        // If the code did not load (see `load`), the presses wait for Retry.
        const library = await load().catch(() => undefined);
        if (!library) return;
        do {
          for (let next = presses.shift(); next !== undefined; next = presses.shift()) await apply(library, next);
          setWaiting(false);
          setView(await library.read(streamName(current)));
        } while (presses.length);
      } finally {
        running = false;
      }
    }

    const queue = (press: Press) => {
      presses.push(press);
      setWaiting(true);
      void run();
    };

    return {
      press: (key: string) => queue(key),
      reset: () => queue(RESET),
      start: () => {
        if (!requested) void run();
      },
      retry: () => void run(),
    };
  });

  return { stream: streamName(stream), view, message, code, waiting, ...actions };
}
