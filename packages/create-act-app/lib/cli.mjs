// @ts-check
/**
 * The command: reads the arguments, asks for what is missing when a person
 * is at the terminal, writes the project and prints the next steps. Returns
 * the exit code instead of exiting, so tests can call it.
 */
import { relative } from "node:path";
import { choose, parse, STORES, UsageError } from "./args.mjs";
import { generate, TargetError } from "./generate.mjs";
import { ownVersion, versions } from "./versions.mjs";

/** Exit codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2 };

export const HELP = `Usage: create-act-app <folder> [options]
       npm create act-app@latest <folder> -- [options]

Creates a new Act app in <folder> (which must not exist, or be empty): a state
with zod schemas, an action and an invariant, a reaction, a projection into
the store's database (exactly once), vitest tests using Act's testing kit,
a tsconfig and a README with the next steps. It installs nothing: run
npm install in the folder afterwards.

Options:
  --store <store>  where the events are kept: sqlite (default; a file, no
                   server) or postgres (a PostgreSQL server at DATABASE_URL)
  --http           also serve the app over HTTP with @act-root/act-http
                   (one route module, src/http.ts); --no-http: don't (default)
  --name <name>    the package's npm name (default: the folder's name)
  --packs <dir>    depend on Act's packed tarballs in <dir> (npm run pack:local
                   in the Act repository) instead of the npm registry
  -h, --help       this text
  -v, --version    the version of create-act-app

With a folder given, the options not given take their defaults. Only when run
at a terminal without a folder does it ask — for the folder, the store and
HTTP. It never prompts in CI (no terminal on stdin).

Exit codes: 0 created, 1 not created (the folder is not empty, a file could
not be written), 2 bad arguments.`;

/**
 * Where the command talks to, and whether a person can answer questions.
 *
 * @typedef {object} Io
 * @property {string} cwd - the folder relative paths start from
 * @property {(text: string) => void} out - standard output, one message
 * @property {(text: string) => void} err - standard error, one message
 * @property {((question: string) => Promise<string>) | undefined} ask - asks a person at a terminal; undefined when there is none
 */

/**
 * Asks for the folder, the store and HTTP, each only when the command line
 * left it out.
 *
 * @param {import("./args.mjs").Parsed} parsed
 * @param {(question: string) => Promise<string>} ask
 * @returns {Promise<import("./args.mjs").Parsed>}
 */
async function prompt(parsed, ask) {
  const directory = parsed.directory ?? ((await ask("Folder to create (my-act-app): ")).trim() || "my-act-app");
  const store =
    parsed.store ?? ((await ask(`Store, ${STORES.join(" or ")} (${STORES[0]}): `)).trim().toLowerCase() || STORES[0]);
  const http = parsed.http ?? /^y(es)?$/i.test((await ask("Serve it over HTTP? (y/N): ")).trim());
  return { ...parsed, directory, store, http };
}

/**
 * The next steps, as the project's README gives them.
 *
 * @param {import("./args.mjs").Choices} choices
 * @param {string} cwd
 */
function nextSteps(choices, cwd) {
  const folder = relative(cwd, choices.directory) || ".";
  const lines = [`cd ${folder.includes(" ") ? `"${folder}"` : folder}`, "npm install"];
  if (choices.store === "postgres")
    lines.push("export DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres");
  lines.push("npm test", choices.http ? "npm run dev        # the API on http://localhost:3000" : "npm run dev");
  return lines.map((line) => `  ${line}`).join("\n");
}

/**
 * Runs the command.
 *
 * @param {string[]} argv - the arguments after the command's name
 * @param {Io} io
 * @returns {Promise<number>} the exit code
 */
export async function main(argv, io) {
  try {
    let parsed = parse(argv);
    if (parsed.help) {
      io.out(HELP);
      return EXIT.ok;
    }
    if (parsed.version) {
      io.out(ownVersion());
      return EXIT.ok;
    }
    if (!parsed.directory && io.ask) parsed = await prompt(parsed, io.ask);
    const choices = choose(parsed, io.cwd);
    const written = generate(choices, versions());
    io.out(
      `Created ${choices.name} in ${choices.directory} (${written.length} files): ` +
        `${choices.store === "sqlite" ? "SQLite" : "PostgreSQL"} store${choices.http ? ", HTTP API" : ""}.\n\n` +
        `Next steps:\n${nextSteps(choices, io.cwd)}\n\nREADME.md says what each file is and where to go from there.`
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`create-act-app: ${error.message}\nRun create-act-app --help for the options.`);
      return EXIT.usage;
    }
    io.err(
      `create-act-app: ${error instanceof TargetError ? "" : "failed: "}${error instanceof Error ? error.message : String(error)}`
    );
    return EXIT.failed;
  }
}
