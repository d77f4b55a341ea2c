// Loaded into a docs snippet that scripts/check-snippets.mjs runs: a
// `console.log(...)` whose line claims a value is rewritten to
// `logAt(<line in the page>)(...)`, which prints exactly as console.log
// would and remembers the printed text under that page line. When the
// process exits, the texts go to the JSON file named by SNIPPET_LOG_FILE,
// where the checker compares them with the claims.
import { writeFileSync } from "node:fs";
import { format } from "node:util";

/** Page line → every text printed from it, in order. */
const printed = {};

/** A console.log that also records what it printed for page line `line`. */
export function logAt(line) {
  return (...args) => {
    printed[line] ??= [];
    printed[line].push(format(...args));
    console.log(...args);
  };
}

process.on("exit", () => {
  if (process.env.SNIPPET_LOG_FILE) writeFileSync(process.env.SNIPPET_LOG_FILE, JSON.stringify(printed));
});
