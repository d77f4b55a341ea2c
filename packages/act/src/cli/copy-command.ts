/**
 * What `act-copy` does, apart from the process it runs in: reads its
 * arguments, opens the stores they name, copies (or hashes) and prints
 * progress, returning the exit code. The bin (`act-copy.ts`) only calls it.
 */
import { copyStore } from "../copying/copy-store.js";
import { type LogDigest, logDigest } from "../copying/log-digest.js";
import type { Store } from "../types/ports.js";

/** How to use the command. */
export const USAGE = `Usage:
  act-copy --from <store> --to <store> [--batch <events>]   copy a store into an empty one (or finish an interrupted copy)
  act-copy --digest <store>                                 print the digest of a store's log (and archive)

<store> is one of:
  sqlite:<path>                          a SQLite file (package @act-root/act-sqlite)
  postgres://user@host:5432/db           PostgreSQL (package @act-root/act-pg); add ?schema=<s>&table=<t>
                                         for another table than public.events
  env:<NAME>                             the URL in environment variable NAME (keeps passwords out of the shell history)`;

/** The arguments, read. */
export type CopyArgs =
  | { readonly mode: "copy"; readonly from: string; readonly to: string; readonly batch?: number }
  | { readonly mode: "digest"; readonly store: string }
  | { readonly mode: "help" };

/** Reads the arguments; throws an `Error` saying what is wrong. */
export function parseArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): CopyArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--help" || flag === "-h") return { mode: "help" };
    if (!["--from", "--to", "--batch", "--digest"].includes(flag)) throw new Error(`unknown argument "${flag}"`);
    const value = argv[++i];
    if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value`);
    if (values.has(flag)) throw new Error(`${flag} is given twice`);
    values.set(flag, value);
  }
  const url = (flag: string) => {
    const value = values.get(flag) as string;
    if (!value.startsWith("env:")) return value;
    const name = value.slice(4);
    const found = env[name];
    if (!found) throw new Error(`${flag} ${value}: the environment variable ${name} is not set`);
    return found;
  };
  if (values.has("--digest")) {
    if (values.size > 1) throw new Error("--digest takes no other argument");
    return { mode: "digest", store: url("--digest") };
  }
  if (!values.has("--from") || !values.has("--to")) throw new Error("both --from and --to are needed");
  const raw = values.get("--batch");
  const batch = raw === undefined ? undefined : Number(raw);
  if (batch !== undefined && (!Number.isSafeInteger(batch) || batch < 1 || batch > 65_536))
    throw new Error(`--batch must be a whole number from 1 to 65,536, got "${raw}"`);
  return { mode: "copy", from: url("--from"), to: url("--to"), ...(batch !== undefined && { batch }) };
}

/** Opens the store a URL names. */
export type StoreOpener = (url: string) => Promise<Store>;

/** What a URL names, without its password (for messages). */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@]*@/, "$1:***@");
}

/**
 * Loads a store package by name, at run time. The name is a variable so the
 * bundler leaves the import to Node, which finds the package beside this
 * one in the app's `node_modules` (the store packages depend on this one,
 * so this one cannot depend on them).
 */
const load = (name: string): Promise<any> => import(name);

/**
 * Opens a store from its URL, loading the store package only when the URL
 * asks for it: a SQLite user need not install the PostgreSQL one.
 */
export const openStore: StoreOpener = async (url) => {
  const missing = (name: string) => (error: unknown) => {
    throw new Error(
      `${redact(url)} needs the package ${name}, which could not be loaded (${(error as Error).message}): install it beside @act-root/act`
    );
  };
  if (url.startsWith("sqlite:")) {
    const filename = url.slice("sqlite:".length);
    if (!filename) throw new Error(`"${url}" names no file: write sqlite:./path/to/app.db`);
    const { SqliteStore } = await load("@act-root/act-sqlite").catch(missing("@act-root/act-sqlite"));
    return new SqliteStore({ filename }) as Store;
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get("schema") ?? undefined;
    const table = parsed.searchParams.get("table") ?? undefined;
    parsed.searchParams.delete("schema");
    parsed.searchParams.delete("table");
    const { PostgresStore } = await load("@act-root/act-pg").catch(missing("@act-root/act-pg"));
    return new PostgresStore({
      connectionString: parsed.toString(),
      ...(schema && { schema }),
      ...(table && { table }),
      applicationName: "act-copy",
    }) as Store;
  }
  throw new Error(`"${redact(url)}" is not a store: write sqlite:<path> or postgres://…`);
};

/** A digest as one line: the log's, then the archive's when it holds events. */
const digestLine = ({ events, last, digest, archive }: LogDigest) =>
  `${events} events, last id ${last}, ${digest}` +
  (archive ? `; archive: ${archive.events} events, last id ${archive.last}, ${archive.digest}` : "");

/** Where the command writes. */
export type Output = { out: (line: string) => void; err: (line: string) => void };

/**
 * Runs the command: returns 0 when done, 1 when the copy or the digest
 * failed, 2 when the arguments are wrong.
 */
export async function runCopyCommand(
  argv: readonly string[],
  { out, err }: Output,
  open: StoreOpener = openStore,
  env: Record<string, string | undefined> = {}
): Promise<number> {
  let args: CopyArgs;
  try {
    args = parseArgs(argv, env);
  } catch (error) {
    err(`act-copy: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.mode === "help") {
    out(USAGE);
    return 0;
  }
  const opened: Store[] = [];
  try {
    if (args.mode === "digest") {
      const store = await open(args.store);
      opened.push(store);
      out(digestLine(await logDigest(store)));
      return 0;
    }
    const from = await open(args.from);
    opened.push(from);
    const to = await open(args.to);
    opened.push(to);
    out(`copying ${redact(args.from)} into ${redact(args.to)}`);
    let printed = 0;
    let phase = "";
    const report = await copyStore(from, to, {
      ...(args.batch !== undefined && { batch: args.batch }),
      onProgress: (p) => {
        // One line a second at most while events go, and one at each phase.
        if (p.phase === phase && Date.now() - printed < 1000) return;
        printed = Date.now();
        phase = p.phase;
        out(
          p.phase === "archive"
            ? `archive: ${p.copied.toLocaleString("en-US")} archived events copied (target archive at id ${p.last})`
            : p.phase === "events"
              ? `events: ${p.copied.toLocaleString("en-US")} copied (target at id ${p.last})`
              : p.phase === "records"
                ? `records: reaction streams, idempotency keys, discovery positions, timers, subject keys (after ${p.copied.toLocaleString("en-US")} events)`
                : "verify: comparing both logs and archives"
        );
      },
    });
    const r = report.records;
    out(
      `done: ${report.copied.toLocaleString("en-US")} events copied${report.resumedAfter >= 0 ? ` (continued after id ${report.resumedAfter})` : ""}` +
        `${report.archived ? `, ${report.archived.toLocaleString("en-US")} archived events` : ""}; ` +
        `${r.watermarks} reaction streams, ${r.keys} idempotency keys, ${r.discovery} discovery positions, ${r.timers} timers, ${r.subjects} data subjects' keys`
    );
    out(`both logs: ${digestLine(report.log)}`);
    return 0;
  } catch (error) {
    err(`act-copy: ${(error as Error).message}`);
    return 1;
  } finally {
    for (const store of opened) await store.dispose().catch(() => {});
  }
}
