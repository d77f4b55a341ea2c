#!/usr/bin/env node
/**
 * `act-copy`: copies a store into another one (see `copyStore`), or prints
 * the digest of a store's log. `act-copy --help` says how.
 */
import { runCopyCommand } from "./copy-command.js";

void runCopyCommand(
  process.argv.slice(2),
  { out: (line) => console.log(line), err: (line) => console.error(line) },
  undefined,
  process.env
).then((code) => {
  process.exitCode = code;
});
