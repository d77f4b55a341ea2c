import { z } from "zod";
import type { Config, Package } from "./types/config.js";
import { Environments, LogLevels } from "./types/config.js";
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

/**
 * Reads `package.json` from the working folder; `{}` in a browser or when
 * there is none. `process.getBuiltinModule` (Node 20.16 and later, hence the
 * packages' `engines`) keeps `fs` out of browser bundles and off the import path.
 */
function readPackage(): Record<string, unknown> {
  const proc = globalThis.process;
  if (proc?.versions?.node && typeof proc.getBuiltinModule !== "function")
    throw new Error(`config() needs Node.js 20.16 or later to read package.json (this is ${proc.versions.node})`);
  const fs = proc?.getBuiltinModule?.("fs") as typeof import("fs") | undefined;
  if (!fs) return {};
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
 * facts are empty.
 *
 * @returns the validated configuration
 * @throws {@link ValidationError} naming the bad variable, e.g. `Invalid environment variable LOG_LEVEL: ...`
 * @example
 * ```ts
 * const { name, version, env, logLevel } = config();
 * console.log(`${name}@${version} (${env}, ${logLevel})`);
 * ```
 */
export function config(): Config {
  const env = globalThis.process?.env ?? {};
  const pkg = validate<Package>("package.json", readPackage(), PackageSchema as z.ZodType<Package>);
  const nodeEnv = variable("NODE_ENV", env.NODE_ENV, z.enum(Environments)) ?? "development";
  const defaultLevel = nodeEnv === "test" ? "fatal" : nodeEnv === "production" ? "info" : "debug";
  return {
    ...pkg,
    env: nodeEnv,
    logLevel: variable("LOG_LEVEL", env.LOG_LEVEL, z.enum(LogLevels)) ?? defaultLevel,
    logSingleLine: variable("LOG_SINGLE_LINE", env.LOG_SINGLE_LINE, Flag) ?? true,
    sleepMs: variable("SLEEP_MS", env.SLEEP_MS, z.coerce.number().int().min(0)) ?? (nodeEnv === "test" ? 0 : 100),
  };
}
