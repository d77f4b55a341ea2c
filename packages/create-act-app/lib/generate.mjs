// @ts-check
/**
 * Writing a project: the template layers copied into the target folder, its
 * package.json, and the checks before anything is written.
 *
 * The templates are real files under `templates/`, in layers — `base` (the
 * state, the reaction, the tests of the state), then the store's (`sqlite`
 * or `postgres`: the store, the projection into its database, the test of
 * the whole app), then `http` when asked for — a later layer's file replaces
 * an earlier one at the same path. Two kinds of file are not copied as they
 * are: `gitignore` becomes `.gitignore` (npm leaves `.gitignore` files out of
 * a package), and `README.part.md` is spliced into the base README.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { PACKAGE_DIR } from "./versions.mjs";

/** The templates folder of this package. */
export const TEMPLATES = join(PACKAGE_DIR, "templates");

/** Where in the base README each layer's `README.part.md` goes. */
const PARTS = { store: "<!-- store -->", http: "<!-- http -->" };

/** A refusal to write: the command prints it and exits with 1. */
export class TargetError extends Error {
  name = "TargetError";
}

/**
 * Every file under `dir`, as paths relative to it with `/` separators.
 *
 * @param {string} dir
 * @returns {string[]}
 */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => path.split(sep).join("/"))
    .sort();
}

/**
 * The layers a project is made of, in order.
 *
 * @param {Pick<import("./args.mjs").Choices, "store" | "http">} choices
 * @returns {string[]}
 */
export function layers({ store, http }) {
  return ["base", store, ...(http ? ["http"] : [])];
}

/**
 * The dependencies of a project, by field, with the ranges given (or, with
 * `packs`, `file:` specs of the tarballs there, relative to the project).
 *
 * @param {Pick<import("./args.mjs").Choices, "store" | "http" | "packs" | "directory">} choices
 * @param {Record<string, string>} ranges - npm name → range (lib/versions.mjs)
 * @returns {{ dependencies: Record<string, string>, devDependencies: Record<string, string> }}
 */
export function dependencies({ store, http, packs, directory }, ranges) {
  const runtime = [
    "@act-root/act",
    "zod",
    ...(store === "sqlite" ? ["@act-root/act-sqlite", "libsql"] : ["@act-root/act-pg", "pg"]),
    ...(http ? ["@act-root/act-http", "hono", "@hono/node-server"] : []),
  ];
  const development = ["@types/node", "tsx", "typescript", "vitest", ...(store === "postgres" ? ["@types/pg"] : [])];
  /** @param {string} name */
  const spec = (name) => {
    if (packs && name.startsWith("@act-root/")) {
      const tarball = join(packs, `${name.slice(1).replace("/", "-")}.tgz`);
      if (!existsSync(tarball))
        throw new TargetError(
          `--packs ${packs}: no ${tarball}; run \`npm run pack:local\` in the Act repository first`
        );
      return `file:${relative(directory, tarball).split(sep).join("/")}`;
    }
    const range = ranges[name];
    if (!range) throw new Error(`no version known for ${name}`);
    return range;
  };
  /** @param {string[]} names */
  const object = (names) => Object.fromEntries([...names].sort().map((name) => [name, spec(name)]));
  return { dependencies: object(runtime), devDependencies: object(development) };
}

/**
 * The project's package.json.
 *
 * @param {import("./args.mjs").Choices} choices
 * @param {Record<string, string>} ranges
 * @returns {string}
 */
export function manifest(choices, ranges) {
  const json = {
    name: choices.name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: ">=20" },
    scripts: {
      dev: "tsx watch src/main.ts",
      start: "tsx src/main.ts",
      test: "vitest run",
      typecheck: "tsc",
    },
    ...dependencies(choices, ranges),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/**
 * The files of a project, by path in it, with their contents (package.json
 * included).
 *
 * @param {import("./args.mjs").Choices} choices
 * @param {Record<string, string>} ranges
 * @returns {Map<string, string>}
 */
export function files(choices, ranges) {
  /** @type {Map<string, string>} */
  const out = new Map();
  /** @type {Record<string, string>} */
  const parts = {};
  for (const layer of layers(choices)) {
    const dir = join(TEMPLATES, layer);
    for (const path of filesUnder(dir)) {
      const text = readFileSync(join(dir, path), "utf8");
      if (path === "README.part.md") parts[layer === "http" ? PARTS.http : PARTS.store] = text.trimEnd();
      else out.set(path === "gitignore" ? ".gitignore" : path, text);
    }
  }
  const readme = out.get("README.md");
  if (readme === undefined) throw new Error(`${TEMPLATES}/base has no README.md`);
  out.set(
    "README.md",
    Object.values(PARTS)
      .reduce((text, marker) => text.replace(`${marker}\n`, parts[marker] ? `${parts[marker]}\n` : ""), readme)
      .replaceAll("{{name}}", choices.name)
  );
  out.set("package.json", manifest(choices, ranges));
  return out;
}

/**
 * Why the command must not write into `directory`, or `undefined` when it
 * may: it does not exist, or is an empty folder.
 *
 * @param {string} directory
 * @returns {string | undefined}
 */
export function targetProblem(directory) {
  if (!existsSync(directory)) return undefined;
  if (!statSync(directory).isDirectory()) return `${directory} exists and is not a folder`;
  const entries = readdirSync(directory);
  if (entries.length === 0) return undefined;
  const shown = entries.slice(0, 3).join(", ") + (entries.length > 3 ? `, … (${entries.length} entries)` : "");
  return `${directory} is not empty (it holds ${shown}): a new project would mix with, or overwrite, what is there. Choose a new folder, or empty this one first`;
}

/**
 * Writes the project into `choices.directory` (created if missing). Throws a
 * {@link TargetError} before writing anything when the folder is not empty.
 *
 * @param {import("./args.mjs").Choices} choices
 * @param {Record<string, string>} ranges
 * @returns {string[]} the paths written, relative to the folder
 */
export function generate(choices, ranges) {
  const problem = targetProblem(choices.directory);
  if (problem) throw new TargetError(problem);
  const project = files(choices, ranges);
  for (const [path, text] of project) {
    const file = join(choices.directory, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return [...project.keys()].sort();
}
