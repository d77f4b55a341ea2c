import { z } from "zod";
import type { Config, Package } from "../types/config.js";
import { Environments, LogLevels } from "./environment.js";
import { validate } from "./utils.js";

const PackageSchema = z.object({
  name: z.string().default(""),
  version: z.string().default("0.0.0"),
  description: z.string().optional(),
  author: z.union([z.string(), z.object({ name: z.string(), email: z.string().optional() })]).optional(),
  license: z.string().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
});

const Flag = z
  .enum(["true", "false", "1", "0"], { error: 'expected "true", "false", "1" or "0"' })
  .transform((v) => v === "true" || v === "1");

/** The two `fs` functions {@link readPackage} needs. */
type Fs = Pick<typeof import("fs"), "existsSync" | "readFileSync">;

/** `fs` loaded by a dynamic import, for ES modules on Node.js before 20.16. */
let imported: Fs | undefined;
let importing: Promise<void> | undefined;
let warned = false;

/**
 * Finds Node's `fs` without importing it, so the core still bundles and runs
 * in a browser (where this returns undefined). In order:
 * `process.getBuiltinModule` (Node 20.16+, 22.3+, Bun, Deno); the main
 * module's `require` (CommonJS apps on any Node 20); else a dynamic import
 * started on first use (ES modules on Node 20.0–20.15), ready from the next
 * tick on.
 */
function nodeFs(): Fs | undefined {
  const proc = globalThis.process as (NodeJS.Process & { getBuiltinModule?: (id: string) => unknown }) | undefined;
  if (!proc?.versions?.node) return undefined;
  const builtin = proc.getBuiltinModule?.("fs") as Fs | undefined;
  if (builtin) return builtin;
  const main = proc.mainModule?.require?.("fs") as Fs | undefined;
  if (main) return main;
  if (!imported && !importing) {
    // Built at run time so no bundler tries to resolve `fs` for the browser.
    const specifier = ["node", "fs"].join(":");
    importing = import(/* @vite-ignore */ /* webpackIgnore: true */ specifier).then(
      (fs: Fs & { default?: Fs }) => {
        imported = fs.default ?? fs;
      },
      () => undefined
    );
  }
  return imported;
}

// Starts the dynamic import early on older Node, so config() calls made after startup find fs.
nodeFs();

/**
 * Reads `package.json` from the working folder; `{}` in a browser or when
 * there is none. On Node it never comes back empty without saying so: the
 * one case it cannot read the file — an ES module on Node 20.0–20.15 calling
 * `config()` before the first tick — emits a warning once.
 */
function readPackage(): Record<string, unknown> {
  const proc = globalThis.process;
  const fs = nodeFs();
  if (!fs) {
    if (proc?.versions?.node && !warned) {
      warned = true;
      proc.emitWarning?.(
        `config() could not read package.json yet: Node.js ${proc.versions.node} loads fs asynchronously in an ES module (Node.js 20.16 and later do not); its facts are empty in this call and read by the calls made once fs has loaded`
      );
    }
    return {};
  }
  const file = `${proc.cwd()}/package.json`;
  if (!fs.existsSync(file)) return {};
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Validates one environment variable so the error names it. */
function variable<T>(name: string, value: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (value === undefined || value === "") return undefined;
  return validate(`environment variable ${name}`, value, schema);
}

/**
 * Returns the app's configuration: facts from `package.json` in the working
 * folder (`name`, `version`, `description`, `author`, `license`,
 * `dependencies`) and settings from the environment — `NODE_ENV`
 * ({@link Environments}), `LOG_LEVEL` ({@link LogLevels}), `LOG_SINGLE_LINE`
 * and `SLEEP_MS`. Without a `package.json` (or in a browser) the package
 * facts are empty. It reads the file on every Node 20 and later; only an ES
 * module on Node 20.0–20.15 calling it during startup (before `fs` has
 * loaded) gets empty facts, with a warning.
 *
 * @stable
 * @returns the validated configuration
 * @throws {@link ValidationError} naming the bad variable, e.g. `Invalid environment variable LOG_LEVEL: ...`
 * @see [Configuration](/docs/concepts/configuration#config) — lists the settings.
 * @example
 * ```ts
 * const { name, version, env, logLevel } = config();
 * console.log(`${name}@${version} (${env}, ${logLevel})`);
 * ```
 */
export function config(): Config {
  const pkg = validate<Package>("package.json", readPackage(), PackageSchema as z.ZodType<Package>);
  return { ...pkg, ...settings() };
}

/**
 * The environment half of {@link config}, without reading `package.json`:
 * for callers that only need the log level or the environment (building an
 * app, creating the logger), so they never touch the file system.
 */
export function settings(): Omit<Config, keyof Package> {
  const env = globalThis.process?.env ?? {};
  const nodeEnv = variable("NODE_ENV", env.NODE_ENV, z.enum(Environments)) ?? "development";
  const defaultLevel = nodeEnv === "test" ? "fatal" : nodeEnv === "production" ? "info" : "debug";
  return {
    env: nodeEnv,
    logLevel: variable("LOG_LEVEL", env.LOG_LEVEL, z.enum(LogLevels)) ?? defaultLevel,
    logSingleLine: variable("LOG_SINGLE_LINE", env.LOG_SINGLE_LINE, Flag) ?? true,
    // Tests should not wait on sleep(): 0 under NODE_ENV=test unless SLEEP_MS says otherwise.
    sleepMs: variable("SLEEP_MS", env.SLEEP_MS, z.coerce.number().int().min(0)) ?? (nodeEnv === "test" ? 0 : 100),
  };
}
