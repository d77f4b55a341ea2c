// @ts-check
/**
 * The command line: what it accepts, and the checks that refuse bad input
 * with a message saying what was wrong and how to put it right.
 */
import { builtinModules } from "node:module";
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";

/** The stores a project can start on; the first is the default. */
export const STORES = /** @type {const} */ (["sqlite", "postgres"]);

/** @typedef {(typeof STORES)[number]} StoreKind */

/**
 * What to generate.
 *
 * @typedef {object} Choices
 * @property {string} directory - the target folder, absolute
 * @property {string} name - the project's npm name
 * @property {StoreKind} store - where the events are kept
 * @property {boolean} http - whether to serve the app over HTTP
 * @property {string} [packs] - a folder of packed Act tarballs to depend on instead of the registry
 */

/**
 * What the command line said; `undefined` where it said nothing (a prompt or
 * the default decides).
 *
 * @typedef {object} Parsed
 * @property {string} [directory]
 * @property {string} [name]
 * @property {string} [store]
 * @property {boolean} [http]
 * @property {string} [packs]
 * @property {boolean} help
 * @property {boolean} version
 */

/** A mistake in the command line: the command prints it with the usage and exits with 2. */
export class UsageError extends Error {
  name = "UsageError";
}

/**
 * Reads the arguments (without `node` and the script). Throws a
 * {@link UsageError} for an unknown option, a missing value or more than one
 * folder.
 *
 * @param {string[]} argv
 * @returns {Parsed}
 */
export function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        store: { type: "string" },
        http: { type: "boolean" },
        "no-http": { type: "boolean" },
        name: { type: "string" },
        packs: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (error) {
    // parseArgs says which option; drop its Node-specific error code.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(`one folder at a time: got ${positionals.map((p) => `"${p}"`).join(", ")}`);
  if (values.http && values["no-http"]) throw new UsageError("--http and --no-http contradict each other");
  return {
    directory: positionals[0],
    name: values.name,
    store: values.store,
    http: values.http ? true : values["no-http"] ? false : undefined,
    packs: values.packs,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/**
 * Why `name` cannot be an npm package name, or `undefined` when it can: the
 * registry's rules for new packages (lowercase, URL-safe, at most 214
 * characters, not starting with `.` or `_`, not a Node built-in module).
 *
 * @param {string} name
 * @returns {string | undefined}
 */
export function nameProblem(name) {
  if (name.length === 0) return "it is empty";
  if (name.length > 214) return `it is ${name.length} characters long; at most 214 are allowed`;
  if (name !== name.trim()) return "it starts or ends with a space";
  if (/^[._]/.test(name)) return `it starts with "${name[0]}"`;
  if (name !== name.toLowerCase()) return "it has capital letters";
  const bare = name.startsWith("@") ? name.slice(name.indexOf("/") + 1) : name;
  if (name.startsWith("@") && !/^@[a-z0-9-~][a-z0-9-._~]*\/[^/]+$/.test(name))
    return "a scoped name is @scope/name, with one slash";
  const bad = [...bare].find((c) => !/[a-z0-9-._~]/.test(c));
  if (bad !== undefined) return `it has "${bad}", which is not allowed (only a-z, 0-9, "-", ".", "_" and "~")`;
  if (/^[._]/.test(bare)) return `the name after the scope starts with "${bare[0]}"`;
  if (builtinModules.includes(name) || ["node_modules", "favicon.ico"].includes(name))
    return "it is reserved (a Node built-in module or a name npm refuses)";
  return undefined;
}

/**
 * The choices, from what the command line said (and the prompts answered):
 * the store defaults to SQLite, HTTP to off, the name to the folder's name.
 * Throws a {@link UsageError} naming the bad value.
 *
 * @param {Parsed} parsed
 * @param {string} cwd - the folder relative paths start from
 * @returns {Choices}
 */
export function choose(parsed, cwd) {
  if (!parsed.directory) throw new UsageError("name the folder to create, e.g. create-act-app my-app");
  const store = parsed.store ?? STORES[0];
  if (!(/** @type {readonly string[]} */ (STORES).includes(store)))
    throw new UsageError(`--store ${store}: choose one of ${STORES.join(", ")}`);
  const directory = resolve(cwd, parsed.directory);
  const name = parsed.name ?? basename(directory);
  const problem = nameProblem(name);
  if (problem)
    throw new UsageError(
      parsed.name
        ? `--name "${name}" is not a valid npm package name: ${problem}`
        : `the folder name "${name}" is not a valid npm package name: ${problem}. Choose another folder name, or give the package's name with --name`
    );
  return {
    directory,
    name,
    store: /** @type {StoreKind} */ (store),
    http: parsed.http ?? false,
    ...(parsed.packs ? { packs: resolve(cwd, parsed.packs) } : {}),
  };
}
