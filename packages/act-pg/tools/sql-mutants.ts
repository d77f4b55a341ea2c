/**
 * Hand-made mutants of the store's SQL. StrykerJS replaces a statement's
 * template only as a whole (an empty statement fails every test), so the
 * conditions inside — who may take a lease, which ack counts, how far a
 * watermark moves — are not mutated by it. This script changes each of the
 * conditions below in turn, runs the tests that cover the statements against
 * one disposable server, and reports whether they failed (killed) or not
 * (survived). `npm run test:sql-mutants` (here); exits non-zero when one
 * survives. The files are restored after each mutant, and on Ctrl-C.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the texts to change are the sources' template literals, placeholders included.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./pg-server.js";

/**
 * One change to a statement: what it breaks, or — `equivalent` — why no test
 * can tell (it changes how long something waits, not what happens).
 */
type Mutant = { file: "sql.ts" | "watermark-sql.ts"; from: string; to: string; breaks: string; equivalent?: string };

const MUTANTS: Mutant[] = [
  {
    file: "watermark-sql.ts",
    from: "WHERE NOT blocked AND head > at",
    to: "WHERE NOT blocked AND head >= at",
    breaks: "poll offers streams without work",
  },
  {
    file: "watermark-sql.ts",
    from: "AND (leased_until IS NULL OR leased_until <= now())\n",
    to: "\n",
    breaks: "poll offers leased streams",
  },
  {
    file: "watermark-sql.ts",
    from: "reactions <@ $3::text[]",
    to: "reactions && $3::text[]",
    breaks: "poll offers a stream to an app that lacks one of its reactions",
  },
  {
    file: "watermark-sql.ts",
    from: "WHERE i.token IS NULL AND NOT w.blocked AND w.at <= i.at",
    to: "WHERE i.token IS NULL AND NOT w.blocked",
    breaks: "a lease is granted on a stale poll",
  },
  {
    file: "watermark-sql.ts",
    from: "WHERE i.token IS NULL AND NOT w.blocked AND",
    to: "WHERE i.token IS NULL AND",
    breaks: "a blocked stream is leased",
  },
  {
    file: "watermark-sql.ts",
    from: "(w.leased_until IS NULL OR w.leased_until <= now() OR w.leased_by = i.holder)",
    to: "true",
    breaks: "a lease is granted while another holder's runs",
  },
  {
    file: "watermark-sql.ts",
    from: "now() + $2::bigint * interval '1 millisecond',\n    token = w.token + 1",
    to: "now() + $2::bigint * interval '1 millisecond',\n    token = w.token",
    breaks: "a new lease keeps the old holder's token",
  },
  {
    file: "watermark-sql.ts",
    from: "AND w.leased_by = i.holder AND w.token = i.token\n  FOR UPDATE OF w",
    to: "AND w.leased_by = i.holder\n  FOR UPDATE OF w",
    breaks: "a renewal outlives a reset",
  },
  {
    file: "watermark-sql.ts",
    from: "FOR UPDATE OF w SKIP LOCKED",
    to: "FOR UPDATE OF w",
    breaks: "competing drainers wait for each other",
    equivalent:
      "without SKIP LOCKED a competing lease waits for the row instead of skipping it, then finds it taken: the same streams are granted, later",
  },
  {
    file: "watermark-sql.ts",
    from: "head = GREATEST(w.head, COALESCE(",
    to: "head = (COALESCE(",
    breaks: "a registration moves head back",
  },
  {
    file: "watermark-sql.ts",
    from: "at: `CASE WHEN ${OWNS} THEN GREATEST(w.at, i.at) ELSE w.at END`",
    to: "at: `CASE WHEN ${OWNS} THEN i.at ELSE w.at END`",
    breaks: "an ack moves the watermark backwards",
  },
  {
    file: "watermark-sql.ts",
    from: "at: `CASE WHEN ${OWNS} THEN GREATEST(w.at, i.at) ELSE w.at END`",
    to: "at: `CASE WHEN ${OWNS} THEN GREATEST(w.at, i.at) ELSE i.at END`",
    breaks: "a holder lacking a reaction moves the watermark",
  },
  {
    file: "watermark-sql.ts",
    from: "WHERE w.stream = i.stream AND w.leased_by = i.holder AND w.token = i.token AND NOT w.blocked\nRETURNING w.stream, ${OWNS} AS owns`;\n}\n\n/**\n * `block()`",
    to: "WHERE w.stream = i.stream AND w.leased_by = i.holder AND NOT w.blocked\nRETURNING w.stream, ${OWNS} AS owns`;\n}\n\n/**\n * `block()`",
    breaks: "an ack from before a reset counts",
  },
  {
    file: "watermark-sql.ts",
    from: "WHERE w.stream = i.stream AND w.leased_by = i.holder AND w.token = i.token AND NOT w.blocked\nRETURNING w.stream, ${OWNS} AS owns`;\n}\n\n/**\n * `block()`",
    to: "WHERE w.stream = i.stream AND w.token = i.token AND NOT w.blocked\nRETURNING w.stream, ${OWNS} AS owns`;\n}\n\n/**\n * `block()`",
    breaks: "another drainer acks a lease it does not hold",
  },
  {
    file: "watermark-sql.ts",
    from: "THEN now() + i.delay * interval '1 millisecond' END",
    to: "THEN NULL END",
    breaks: "an ack ignores the retry delay",
  },
  {
    file: "watermark-sql.ts",
    from: "blocked = ${OWNS}, error",
    to: "blocked = true, error",
    breaks: "a holder lacking a reaction blocks the stream",
  },
  {
    file: "watermark-sql.ts",
    from: "o.leased_by = i.holder AND o.token > i.token",
    to: "o.leased_by = i.holder AND false",
    breaks: "an overtaken holder's refused call keeps the stream",
  },
  {
    file: "watermark-sql.ts",
    from: "WHERE stream = ANY($1::text[]) AND blocked\nRETURNING stream",
    to: "WHERE stream = ANY($1::text[])\nRETURNING stream",
    breaks: "unblock touches streams that are not blocked",
  },
  {
    file: "watermark-sql.ts",
    from: "retry = 0, token = token + 1\nWHERE stream = ANY($1::text[])\nRETURNING stream",
    to: "retry = 0, token = token\nWHERE stream = ANY($1::text[])\nRETURNING stream",
    breaks: "a drain in flight records over a reset",
  },
  { file: "watermark-sql.ts", from: "WHERE d.at < excluded.at", to: "", breaks: "a discovery position moves back" },
  {
    file: "sql.ts",
    from: "WHERE ${n.keys}.expires <= now()",
    to: "",
    breaks: "an unexpired idempotency key is claimed again",
  },
  {
    file: "sql.ts",
    from: "AND key = $2 AND expires > now()",
    to: "AND key = $2",
    breaks: "recall returns an expired key",
  },
  {
    file: "sql.ts",
    from: "WHERE stream = $1 ORDER BY version DESC LIMIT 1), -1) AS v",
    to: "WHERE stream = $1 ORDER BY version LIMIT 1), -1) AS v",
    breaks: "a conflict reports the stream's first version",
  },
  {
    file: "sql.ts",
    from: "WHERE ($4::integer IS NULL OR last.v = $4::integer) AND ($5::bigint IS NULL OR last.id = $5::bigint)${keyed",
    to: "WHERE ($5::bigint IS NULL OR last.id = $5::bigint)${keyed",
    breaks: "a commit on a stale version inserts its events",
  },
  {
    file: "sql.ts",
    from: "ELSE EXISTS (SELECT 1 FROM ${n.events} WHERE stream = $1 AND version = $4::integer AND id = $5::bigint) END",
    to: "ELSE $5::bigint IS NOT NULL END",
    breaks: "an app's commit on a stream rewritten to the same version inserts its events",
  },
  {
    file: "sql.ts",
    from: "WHEN $4::integer = -1 THEN NOT EXISTS (SELECT 1 FROM ${n.events} WHERE stream = $1)",
    to: "WHEN $4::integer = -1 THEN true",
    breaks: "a commit for an empty stream goes into one whose first events were archived",
  },
];

/** The tests of the statements: the shared conformance suite and the store's own. */
const TESTS = ["postgres.conformance", "leases", "append"].map((name) => `packages/act-pg/test/${name}.test.ts`);

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const original = new Map<string, string>();
const restore = () => {
  for (const [path, text] of original) writeFileSync(path, text);
};
process.on("SIGINT", () => {
  restore();
  process.exit(130);
});

const server = await startServer();
const survivors: Mutant[] = [];
try {
  for (const mutant of MUTANTS) {
    const path = join(here, "..", "src", mutant.file);
    const text = original.get(path) ?? readFileSync(path, "utf8");
    original.set(path, text);
    const at = text.indexOf(mutant.from);
    if (at < 0 || text.indexOf(mutant.from, at + 1) >= 0)
      throw new Error(`${mutant.file}: the text to change must occur exactly once: ${mutant.from}`);
    writeFileSync(
      path,
      text.replace(mutant.from, () => mutant.to)
    );
    const run = spawnSync("npx", ["vitest", "run", "--project", "act-pg", "--bail", "1", ...TESTS], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: server.url },
      stdio: "ignore",
    });
    writeFileSync(path, text);
    const killed = run.status !== 0;
    if (!killed && !mutant.equivalent) survivors.push(mutant);
    const verdict = killed ? "killed  " : mutant.equivalent ? "equivalent" : "SURVIVED";
    console.log(
      `${verdict} ${mutant.file}: ${mutant.breaks}${!killed && mutant.equivalent ? ` (${mutant.equivalent})` : ""}`
    );
  }
} finally {
  restore();
  await server.stop();
}
console.log(`${survivors.length} of ${MUTANTS.length} SQL mutants survived that a test should kill`);
process.exitCode = survivors.length ? 1 : 0;
