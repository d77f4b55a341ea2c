import pino from "pino";
import { config } from "./config.js";
import { InMemoryStore } from "./stores/in-memory.js";
import type { ExitCode } from "./types/config.js";
import type { Disposable, Disposer, Logger, Store } from "./types/ports.js";

/** Adapters in creation order, by injector; disposed in reverse. */
const adapters = new Map<Function, Disposable>();
/** Clean-ups registered with dispose(). */
const disposers: Disposer[] = [];
let signalsHooked = false;

/** SIGINT/SIGTERM dispose cleanly; hooked on first use, never at import time. */
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
 * {@link disposeAndExit}.
 *
 * @param injector - builds the adapter; receives the adapter passed to the first call
 * @returns the getter
 * @example
 * ```ts
 * const cache = port(function cache(adapter?: Cache) { return adapter ?? new MemoryCache(); });
 * cache().set("k", 1); // same instance everywhere
 * ```
 */
export function port<T extends Disposable>(injector: (adapter?: T) => T): (adapter?: T) => T {
  return (adapter?: T) => {
    let instance = adapters.get(injector) as T | undefined;
    if (!instance) {
      instance = injector(adapter);
      adapters.set(injector, instance);
      hookSignals();
    }
    return instance;
  };
}

/**
 * The store port. The first call fixes the adapter for the whole process:
 * pass a store (e.g. a `PostgresStore`) before anything else uses it, or get
 * the default {@link InMemoryStore}.
 *
 * @param adapter - the store to use (first call only)
 * @returns the store in use
 * @example
 * ```ts
 * import { PostgresStore } from "@act-root/act-pg";
 *
 * store(new PostgresStore({ database: "app" })); // at start-up
 * await store().seed();
 * ```
 */
export const store = port(function store(adapter?: Store): Store {
  return adapter ?? new InMemoryStore();
});

/** Builds the pino logger from config(); pretty output only in development when pino-pretty is installed. */
function createLogger(): Logger {
  const { env, logLevel, logSingleLine } = config();
  let instance: pino.Logger | undefined;
  if (env !== "production" && env !== "test" && globalThis.process?.versions?.node) {
    try {
      instance = pino({
        level: logLevel,
        transport: { target: "pino-pretty", options: { colorize: true, singleLine: logSingleLine } },
      });
    } catch {
      // pino-pretty is optional: fall back to JSON lines.
    }
  }
  instance ??= pino({ level: logLevel });
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

const loggerPort = port(function logger(adapter?: Logger): Logger {
  return adapter ?? createLogger();
});

/**
 * The logger port: log with `logger.info(...)` and friends. The pino adapter
 * is created on first use from {@link config} (`LOG_LEVEL`, `LOG_SINGLE_LINE`),
 * with pretty output in development when `pino-pretty` is installed.
 *
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
 * Registers a clean-up to run when the process is disposed, and returns
 * {@link disposeAndExit} so a caller can trigger it.
 *
 * @param disposer - async clean-up (optional)
 * @returns `disposeAndExit`
 * @example
 * ```ts
 * const exit = dispose(async () => server.close());
 * process.on("uncaughtException", () => exit("ERROR"));
 * ```
 */
export function dispose(disposer?: Disposer): (code?: ExitCode) => Promise<void> {
  hookSignals();
  if (disposer) disposers.push(disposer);
  return disposeAndExit;
}

/**
 * Runs the registered disposers, then disposes every adapter newest first,
 * then exits the process — code 1 for `"ERROR"`, 0 for `"EXIT"`. Under
 * `NODE_ENV=test` it disposes without exiting; in production an `"ERROR"` is
 * logged and the process keeps running. SIGINT and SIGTERM call it with `"EXIT"`.
 *
 * @param code - `"EXIT"` (default) or `"ERROR"`
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
  await Promise.all(cleanups.map((d) => d().catch((error) => console.error(error))));
  const created = [...adapters.values()].reverse();
  adapters.clear();
  for (const adapter of created) {
    await adapter.dispose().catch((error) => console.error(error));
  }
  if (env !== "test" && typeof globalThis.process?.exit === "function") {
    globalThis.process.exit(code === "ERROR" ? 1 : 0);
  }
}
