/**
 * Runs the calculator from the command line:
 *
 *     npm start -w @act-root/calculator -- 12 + 7 x 2 =
 *
 * Use "x" or "*" for ×, "/" for ÷, "-" for −, "c" to clear (quote "*" in a
 * shell). Without keys it plays a short demo.
 */
import { run } from "./cli.js";

const args = process.argv.slice(2);
await run(args.length ? args : ["12", "+", "7", "x", "2", "=", "c", "1", "/", "0", "="], (line) => console.log(line));
