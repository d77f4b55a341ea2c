/**
 * One library on one store, in a process of its own (so that no library's
 * process-wide ports, caches or JIT state affect another's figures). Started
 * by `main.ts` as `run.ts <subject> <memory|postgres|sqlite> <version>` with
 * `DATABASE_URL` set for PostgreSQL and `SQLITE_FILE` for SQLite; sends its
 * figures to the parent.
 */
import type { Subject, Target } from "./workloads.js";
import { runDatabase, runMemory } from "./workloads.js";

const SUBJECTS: Record<string, (target: Target, version: string) => Promise<Subject>> = {
  act: async (t, v) => (await import("./subjects/act.js")).subject(t, v),
  "reference-1": async (t, v) => (await import("./subjects/reference-1.js")).subject(t, v),
  "reference-0": async (t, v) => (await import("./subjects/reference-0.js")).subject(t, v),
  emmett: async (t, v) =>
    t.kind === "sqlite"
      ? (await import("./subjects/emmett-sqlite.js")).subject(t, v)
      : (await import("./subjects/emmett.js")).subject(t, v),
};

function targetOf(kind: Target["kind"]): Target {
  if (kind === "memory") return { kind };
  const [variable, value] =
    kind === "postgres" ? ["DATABASE_URL", process.env.DATABASE_URL] : ["SQLITE_FILE", process.env.SQLITE_FILE];
  if (!value) throw new Error(`${variable} is not set`);
  return kind === "postgres" ? { kind, url: value } : { kind, file: value };
}

async function main() {
  const [id, kind, version = "?"] = process.argv.slice(2);
  const make = SUBJECTS[id];
  if (!make || (kind !== "memory" && kind !== "postgres" && kind !== "sqlite"))
    throw new Error(`usage: run.ts <${Object.keys(SUBJECTS).join("|")}> <memory|postgres|sqlite>`);
  const target = targetOf(kind);
  const subject = await make(target, version);
  const figures = kind === "memory" ? await runMemory(subject) : await runDatabase(subject);
  await subject.close();
  process.send?.({ figures });
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.send?.({ error: error.message.split("\n")[0] });
    console.error(error);
    process.exit(1);
  }
);
