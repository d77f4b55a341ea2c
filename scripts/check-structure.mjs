// @ts-check
// node scripts/check-structure.mjs — the shape of the packages' sources (the
// second half of `npm run lint`): no import cycle inside a package's `src/`
// (type-only imports count: a reader follows them too), and no source file
// over MAX_LINES lines, except the files listed in LONG_FILES with the reason
// each one is longer. An exempt file that has come under the limit fails too,
// so the list only ever names files that need it.
//
// It uses the TypeScript compiler's own import scanner (`ts.preProcessFile`),
// already a dependency, rather than a dependency-graph package: relative
// imports inside one package are all it has to follow.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Longest a source file may be, in lines. */
export const MAX_LINES = 500;

/**
 * Files allowed over MAX_LINES, relative to the repository, with the reason.
 * @type {Record<string, string>}
 */
export const LONG_FILES = {};

const SOURCE = /\.(c|m)?[jt]sx?$/;

/**
 * Every source file under `dir`, in name order (so a cycle is reported the same way on every machine).
 * @param {string} dir
 * @returns {string[]}
 */
function sources(dir) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/**
 * The file a relative import names (`./x.js` is `./x.ts` in the sources), if it is one of `files`.
 * @param {string} from
 * @param {string} specifier
 * @param {Set<string>} files
 */
function resolveImport(from, specifier, files) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(c|m)?jsx?$/, "");
  const candidates = [base, ...[".ts", ".tsx", ".mts", ".cts", ".js", ".mjs"].map((ext) => stem + ext)];
  candidates.push(...["index.ts", "index.tsx", "index.js"].map((name) => join(base, name)));
  return candidates.find((candidate) => files.has(candidate));
}

/**
 * The import graph of one `src/` folder: each file and the files it imports.
 * @param {string} src
 * @returns {Map<string, string[]>}
 */
export function importGraph(src) {
  const files = new Set(sources(src));
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => resolveImport(file, name, files))
      .filter((target) => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import cycles of a graph, each as the files around it (first file repeated at the end).
 * Tarjan's strongly connected components; one cycle is shown per component.
 * @param {Map<string, string[]>} graph
 * @returns {string[][]}
 */
export function cycles(graph) {
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const found = [];
  /** @param {string} node */
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = new Set();
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.add(member);
    } while (member !== node);
    if (component.size > 1 || (graph.get(node) ?? []).includes(node)) found.push(cycleIn(graph, node, component));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * One cycle through `start` inside a strongly connected component (a breadth-first path back to it).
 * @param {Map<string, string[]>} graph
 * @param {string} start
 * @param {Set<string>} component
 */
function cycleIn(graph, start, component) {
  /** @type {Map<string, string>} */
  const from = new Map();
  const queue = [start];
  while (queue.length) {
    const node = /** @type {string} */ (queue.shift());
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = /** @type {string} */ (from.get(at))) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!from.has(next)) {
        from.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/**
 * What is wrong with the sources of the packages under `root`: cycles and long files.
 * @param {string} root - the repository
 * @param {Record<string, string>} [long] - the exempt files (default LONG_FILES)
 * @returns {string[]}
 */
export function check(root, long = LONG_FILES) {
  const problems = [];
  const packages = join(root, "packages");
  for (const name of readdirSync(packages).sort()) {
    const src = join(packages, name, "src");
    if (!existsSync(src) || !statSync(src).isDirectory()) continue;
    const graph = importGraph(src);
    for (const cycle of cycles(graph))
      problems.push(`import cycle: ${cycle.map((file) => relative(root, file)).join(" → ")}`);
    for (const file of [...graph.keys()].sort()) {
      const path = relative(root, file);
      const lines = readFileSync(file, "utf8").split("\n").length - 1;
      if (lines > MAX_LINES && !(path in long))
        problems.push(
          `${path} has ${lines} lines, over ${MAX_LINES}: split it by concern, or list it in LONG_FILES (scripts/check-structure.mjs) with the reason`
        );
      if (lines <= MAX_LINES && path in long)
        problems.push(`${path} has ${lines} lines, no longer over ${MAX_LINES}: remove it from LONG_FILES`);
    }
  }
  for (const path of Object.keys(long))
    if (!existsSync(join(root, path))) problems.push(`${path} is listed in LONG_FILES but does not exist`);
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = check(fileURLToPath(new URL("..", import.meta.url)));
  for (const problem of problems) console.error(problem);
  if (problems.length) process.exit(1);
  console.log("check-structure: no import cycles, no source file over", MAX_LINES, "lines");
}
