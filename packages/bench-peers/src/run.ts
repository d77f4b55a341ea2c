/**
 * One library on one store, in a process of its own (so that no library's
 * process-wide ports, caches or JIT state affect another's figures). Started
 * by `main.ts` as `run.ts <subject> <memory|postgres> <version>` with
 * `DATABASE_URL` set for PostgreSQL; sends its figures to the parent.
 */
import type { Subject, Target } from "./workloads.js";
import { runMemory, runPostgres } from "./workloads.js";

const SUBJECTS: Record<string, (target: Target, version: string) => Promise<Subject>> = {
  act: async (t, v) => (await import("./subjects/act.js")).subject(t, v),
  "reference-1": async (t, v) => (await import("./subjects/reference-1.js")).subject(t, v),
  "reference-0": async (t, v) => (await import("./subjects/reference-0.js")).subject(t, v),
  emmett: async (t, v) => (await import("./subjects/emmett.js")).subject(t, v),
};

async function main() {
  const [id, kind, version = "?"] = process.argv.slice(2);
  const make = SUBJECTS[id];
  if (!make || (kind !== "memory" && kind !== "postgres"))
    throw new Error(`usage: run.ts <${Object.keys(SUBJECTS).join("|")}> <memory|postgres>`);
  const url = process.env.DATABASE_URL;
  if (kind === "postgres" && !url) throw new Error("DATABASE_URL is not set");
  const target: Target = kind === "memory" ? { kind } : { kind, url: url! };
  const subject = await make(target, version);
  const figures = kind === "memory" ? await runMemory(subject) : await runPostgres(subject);
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
