/**
 * The command line of the calculator, kept free of Node built-ins so it can
 * be tested (and reused) anywhere: `run` reads keys and prints through `print`.
 */
import { InvariantError, SNAP_EVENT } from "@act-root/act";
import { app, Calculator, display, expression, press, toKey, type Key } from "./index.js";

/** Splits what was typed into keys: "12+3=" and "12 + 3 =" read the same. */
export function parse(args: string[]): { keys: Key[]; unknown: string[] } {
  const keys: Key[] = [];
  const unknown: string[] = [];
  for (const arg of args) {
    const whole = toKey(arg);
    if (whole) {
      keys.push(whole);
      continue;
    }
    for (const char of arg.replace(/\s+/g, "")) {
      const key = toKey(char);
      if (key) keys.push(key);
      else unknown.push(char);
    }
  }
  return { keys, unknown };
}

/**
 * Presses each key on a fresh calculator, printing the display after each
 * one, then prints the stream's events (snapshots included).
 *
 * @returns the final display
 */
export async function run(args: string[], print: (line: string) => void, stream = "calculator"): Promise<string> {
  const { keys, unknown } = parse(args);
  if (unknown.length) print(`ignored: ${unknown.join(" ")}`);
  for (const key of keys) {
    try {
      const snapshots = await press(key, stream);
      const { state } = snapshots[snapshots.length - 1];
      print(`${key.padEnd(2)} → ${display(state).padStart(14)}   ${expression(state)}`);
    } catch (error) {
      if (!(error instanceof InvariantError)) throw error;
      print(`${key.padEnd(2)} ✗ ${error.description}`);
    }
  }
  print("");
  print("events:");
  for (const event of await app.queryArray({ stream, with_snaps: true })) {
    // Snapshot events are not in the state's event types, hence the widening.
    const data = (event.name as string) === SNAP_EVENT ? "(snapshot of the state)" : JSON.stringify(event.data);
    print(`  #${event.version} ${String(event.name).padEnd(16)} ${data}`);
  }
  const { state, patches, snaps } = await app.load(Calculator, stream);
  print("");
  print(`display: ${display(state)} (loaded from ${snaps} snapshot(s) and ${patches} event(s) after it)`);
  return display(state);
}
