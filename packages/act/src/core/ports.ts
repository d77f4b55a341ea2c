import pino from "pino";
import { settings } from "./config.js";
import { claimStore, releaseStore } from "./copies.js";
import { InMemoryStore } from "../stores/in-memory.js";
import type { ExitCode } from "./environment.js";
import type { Disposable, Disposer, Logger, Store } from "../types/ports.js";

/**
 * Adapters in creation order, by injector (or, for a store an app was built
 * with, by the store itself); disposed in reverse.
 */
const adapters = new Map<object, Disposable>();
/**
 * Ports whose adapter {@link disposeAndExit} disposed. Using one again throws
 * instead of quietly creating a new default adapter: a write after shutdown
 * must fail loudly, not "succeed" in a fresh in-memory store and be lost.
 */
const disposed = new Set<object>();
/** Clean-ups registered with dispose(). */
const disposers: Disposer[] = [];
let signalsHooked = false;

/** SIGINT/SIGTERM dispose cleanly; installed by dispose(), never at import time. */
function hookSignals() {
  if (signalsHooked) return;
  const proc = globalThis.process;
  if (typeof proc?.once !== "function") return;
  signalsHooked = true;
  proc.once("SIGINT", () => void disposeAndExit("EXIT"));
  proc.once("SIGTERM", () => void disposeAndExit("EXIT"));
}

/**
 * Declares a port: returns a getter for a process-wide singleton adapter. The
 * first call creates the adapter — the one passed, or the injector's default —
 * and later calls return it. Adapters are disposed, newest first, by
 * {@link disposeAndExit}; while that runs, calls still reach the adapter
 * being disposed, and afterwards the getter throws an error naming the port
 * until a new adapter is passed to it explicitly — except under
 * `NODE_ENV=test`, where the next call creates a fresh default adapter, so
 * each test can dispose everything and the next one starts clean.
 *
 * @stable
 * @param injector - builds the adapter; receives the adapter passed to the first call
 * @param name - names the port in errors (default: the injector's function name)
 * @returns the getter
 * @see [Configuration](/docs/concepts/configuration#ports-and-adapters) — explains ports and adapters.
 * @example
 * ```ts
 * const cache = port(function cache(adapter?: Cache) { return adapter ?? new MemoryCache(); });
 * cache().set("k", 1); // same instance everywhere
 * ```
 */
export function port<T extends Disposable>(
  injector: (adapter?: T) => T,
  name: string = injector.name || "anonymous"
): (adapter?: T) => T {
  return (adapter?: T) => {
    let instance = adapters.get(injector) as T | undefined;
    if (!instance) {
      // Under NODE_ENV=test a disposed port starts over with its default
      // adapter, so `afterEach(dispose())` leaves the next test a fresh
      // in-memory store; anywhere else a use after shutdown must fail loudly.
      if (disposed.has(injector) && !adapter && globalThis.process?.env?.NODE_ENV !== "test")
        throw new Error(
          `The "${name}" port was disposed by disposeAndExit: its adapter is closed. ` +
            `Pass a new adapter to it (${name}(adapter)) to use it again.`
        );
      instance = injector(adapter);
      adapters.set(injector, instance);
      disposed.delete(injector);
    }
    return instance;
  };
}

function storeInjector(adapter?: Store): Store {
  // Another copy of the library holding a store of its own would split the
  // apps between two stores without a word: refuse before this one takes one.
  claimStore();
  return adapter ?? new InMemoryStore();
}

/**
 * The process-wide store port: the store of every app built without one of
 * its own (`act()…build({ store })` binds an app to a store), and of scripts
 * that read or seed the store directly. The first call fixes the adapter for
 * the whole process: pass a store (e.g. a `PostgresStore`) before anything
 * else uses it, or get the default {@link InMemoryStore}.
 *
 * Each copy of `@act-root/act` has its own port, so two copies in one
 * install would split the apps between two stores. The first use of the
 * port in a second copy, while another copy's port holds a store, throws an
 * error naming both copies (`npm ls @act-root/act` shows where each comes
 * from, `npm dedupe` keeps one).
 *
 * @stable
 * @param adapter - the store to use (first call only)
 * @returns the store in use
 * @throws Error when another copy of `@act-root/act` in this process already holds a store
 * @see [Configuration](/docs/concepts/configuration#ports-and-adapters) — the port, and binding an app to its own store.
 * @example
 * ```ts
 * import { PostgresStore } from "@act-root/act-pg";
 *
 * store(new PostgresStore({ database: "app" })); // at start-up
 * await store().seed();
 * ```
 */
export const store = port(storeInjector, "store");

/**
 * Has {@link disposeAndExit} dispose a store an app was built with, as it
 * does the ports' adapters: after the disposers (a running consumer stops
 * first), newest first. A store the store port holds too is disposed once.
 */
export function adopt(adapter: Disposable): void {
  for (const held of adapters.values()) if (held === adapter) return;
  // Keyed by the store itself: a bound store is no port, and what using it
  // after disposal does is the store's own business.
  adapters.set(adapter, adapter);
}

/**
 * Undoes {@link adopt}: the caller disposed the adapter itself (a removed
 * tenant's store), so {@link disposeAndExit} must not keep it — a process
 * that adds and removes tenants for months would hold every closed store.
 */
export function release(adapter: Disposable): void {
  if (adapters.get(adapter) === adapter) adapters.delete(adapter);
}

/** What an Act error keeps off its enumerable properties: data that may be personal. */
const PRIVATE_FIELDS = ["payload", "target", "snapshot", "events"] as const;

/** Whether a state of this process marks personal fields: then errors are logged without their data at every level. */
let personalFields = false;

/** Called by `state().personal()`: from then on, no log line carries an error's payload, target, state or events. */
export function personalFieldsDeclared(): void {
  personalFields = true;
}

/**
 * How the default logger writes an error: pino's usual fields (type,
 * message, stack, cause and the error's enumerable properties — for Act's
 * errors the names, ids and field paths). The payload, target, state and
 * events an Act error carries are kept off its enumerable properties, so
 * they appear only when the logger runs at `debug` or `trace` level — and
 * never once a state marks personal fields (they may hold them in clear).
 */
export function errorSerializer(withData: boolean): (error: unknown) => unknown {
  return (error) => {
    if (!(error instanceof Error)) return error;
    const out = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
    if (withData && !personalFields)
      for (const key of PRIVATE_FIELDS)
        if (Object.hasOwn(error, key) && !Object.keys(error).includes(key))
          out[key] = (error as unknown as Record<string, unknown>)[key];
    return out;
  };
}

/** Builds the pino logger from the environment settings; pretty output only in development when pino-pretty is installed. */
function createLogger(): Logger {
  const { env, logLevel, logSingleLine } = settings();
  const serializers = { err: errorSerializer(logLevel === "debug" || logLevel === "trace") };
  let instance: pino.Logger | undefined;
  if (env !== "production" && env !== "test" && globalThis.process?.versions?.node) {
    try {
      instance = pino({
        level: logLevel,
        serializers,
        transport: { target: "pino-pretty", options: { colorize: true, singleLine: logSingleLine } },
      });
    } catch {
      // pino-pretty is optional: fall back to JSON lines.
    }
  }
  instance ??= pino({ level: logLevel, serializers });
  const log = instance;
  return {
    fatal: (o, m) => log.fatal(o, m),
    error: (o, m) => log.error(o, m),
    warn: (o, m) => log.warn(o, m),
    info: (o, m) => log.info(o, m),
    debug: (o, m) => log.debug(o, m),
    trace: (o, m) => log.trace(o, m),
    dispose: async () => void log.flush?.(),
  };
}

function loggerInjector(adapter?: Logger): Logger {
  return adapter ?? createLogger();
}
const loggerPort = port(loggerInjector, "logger");

/**
 * The logger port: log with `logger.info(...)` and friends. The pino adapter
 * is created on first use from {@link config} (`LOG_LEVEL`, `LOG_SINGLE_LINE`),
 * with pretty output in development when `pino-pretty` is installed.
 *
 * @stable
 * @see [Configuration](/docs/concepts/configuration#ports-and-adapters) — explains ports and adapters.
 * @example
 * ```ts
 * logger.info({ stream: "calc-1", version: 3 }, "committed");
 * logger.error(new Error("boom"));
 * ```
 */
export const logger: Logger = {
  fatal: (o, m) => loggerPort().fatal(o, m),
  error: (o, m) => loggerPort().error(o, m),
  warn: (o, m) => loggerPort().warn(o, m),
  info: (o, m) => loggerPort().info(o, m),
  debug: (o, m) => loggerPort().debug(o, m),
  trace: (o, m) => loggerPort().trace(o, m),
  dispose: () => loggerPort().dispose(),
};

/**
 * Registers a clean-up without installing signal handlers, for parts of Act
 * that must stop before the adapters close (a running consumer). Returns a
 * function that unregisters it.
 */
export function onDispose(disposer: Disposer): () => void {
  disposers.push(disposer);
  return () => {
    const i = disposers.indexOf(disposer);
    if (i >= 0) disposers.splice(i, 1);
  };
}

/**
 * Registers a clean-up to run when the process is disposed, and returns
 * {@link disposeAndExit} so a caller can trigger it. Calling it (with or
 * without a disposer) also makes `SIGINT` and `SIGTERM` run
 * `disposeAndExit("EXIT")` — the one place Act installs signal handlers.
 *
 * @stable
 * @param disposer - clean-up, async or not (optional)
 * @returns `disposeAndExit`
 * @see [Configuration](/docs/concepts/configuration#shutting-down-cleanly) — explains shutting down.
 * @example
 * ```ts
 * const exit = dispose(() => server.close());
 * process.on("uncaughtException", (error) => {
 *   console.error(error);
 *   process.exitCode = 1;
 *   // "EXIT" disposes and exits in every environment; "ERROR" is ignored in production.
 *   void exit("EXIT");
 * });
 * ```
 */
export function dispose(disposer?: Disposer): (code?: ExitCode) => Promise<void> {
  hookSignals();
  if (disposer) disposers.push(disposer);
  return disposeAndExit;
}

/**
 * Runs the registered disposers, then disposes every adapter newest first,
 * then exits the process — code 1 for `"ERROR"`; for `"EXIT"`,
 * `process.exitCode` if the app set one, else 0. Under
 * `NODE_ENV=test` it disposes without exiting; in production an `"ERROR"` is
 * logged and the process keeps running. SIGINT and SIGTERM call it with
 * `"EXIT"` once {@link dispose} was called.
 *
 * Calls that reach a port while its adapter is being disposed go to that
 * adapter (a store finishes what it can and refuses the rest with an error);
 * afterwards the port throws instead of creating a new default adapter, so
 * no write after shutdown is silently lost. Under `NODE_ENV=test` the ports
 * start over instead: the next `store()` is a fresh {@link InMemoryStore}
 * (`afterEach(dispose())` gives every test a clean store). The logger is the exception: it
 * is flushed, and the next log line creates a new one.
 *
 * @stable
 * @param code - `"EXIT"` (default) or `"ERROR"`
 * @see [Configuration](/docs/concepts/configuration#shutting-down-cleanly) — explains shutting down.
 * @example
 * ```ts
 * await disposeAndExit("EXIT");
 * ```
 */
export async function disposeAndExit(code: ExitCode = "EXIT"): Promise<void> {
  const env = globalThis.process?.env?.NODE_ENV;
  if (code === "ERROR" && env === "production") {
    logger.error("disposeAndExit(ERROR) ignored in production: the process keeps running");
    return;
  }
  const cleanups = disposers.splice(0);
  await Promise.all(
    cleanups.map((d) =>
      Promise.resolve()
        .then(d)
        .catch((error) => console.error(error))
    )
  );
  const closed = new Set<Disposable>();
  for (const [injector, adapter] of [...adapters].reverse()) {
    // Until its turn, and while it closes, the adapter still serves calls.
    if (typeof injector === "function" && injector !== loggerInjector) disposed.add(injector);
    // A store bound to an app and held by the port too is closed once.
    if (!closed.has(adapter))
      await Promise.resolve()
        .then(() => adapter.dispose())
        .catch((error) => console.error(error));
    closed.add(adapter);
    adapters.delete(injector);
    if (injector === storeInjector) releaseStore();
  }
  if (env !== "test" && typeof globalThis.process?.exit === "function") {
    // "EXIT" keeps an exit code the app already set (e.g. 1 after an uncaught exception).
    globalThis.process.exit(code === "ERROR" ? 1 : (globalThis.process.exitCode ?? 0));
  }
}
