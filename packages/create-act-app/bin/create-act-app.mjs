#!/usr/bin/env node
// @ts-check
// `npm create act-app@latest my-app`: see lib/cli.mjs, and --help.
import { createInterface } from "node:readline/promises";
import { main } from "../lib/cli.mjs";

/** A question at the terminal; prompts only when a person is there to answer (never in CI). */
const ask = process.stdin.isTTY
  ? async (/** @type {string} */ question) => {
      const terminal = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await terminal.question(question);
      } finally {
        terminal.close();
      }
    }
  : undefined;

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  ask,
});
