import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT, HELP, main } from "../lib/cli.mjs";
import { ownVersion } from "../lib/versions.mjs";

let work: string;
let out: string[];
let err: string[];
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "create-act-app-cli-"));
  out = [];
  err = [];
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Runs the command in `work`; `answers` stand for a person at a terminal. */
const run = (argv: string[], answers?: string[]) => {
  const questions: string[] = [];
  const ask = answers
    ? async (question: string) => {
        questions.push(question);
        return answers.shift() ?? "";
      }
    : undefined;
  const code = main(argv, { cwd: work, out: (t) => out.push(t), err: (t) => err.push(t), ask });
  return { code, questions };
};

describe("create-act-app", () => {
  it("creates the project and prints the next steps", async () => {
    expect(await run(["my-app"]).code).toBe(EXIT.ok);
    expect(existsSync(join(work, "my-app", "src", "todo.ts"))).toBe(true);
    expect(out.join("\n")).toContain("Next steps:\n  cd my-app\n  npm install\n  npm test\n  npm run dev");
    expect(err).toEqual([]);
  });

  it("tells a PostgreSQL project to set DATABASE_URL", async () => {
    expect(await run(["pg-app", "--store", "postgres", "--http"]).code).toBe(EXIT.ok);
    expect(out.join("\n")).toContain("export DATABASE_URL=");
    expect(JSON.parse(readFileSync(join(work, "pg-app", "package.json"), "utf8")).dependencies).toHaveProperty(
      "@act-root/act-http"
    );
  });

  it("prints the help and the version, and exits with 0", async () => {
    expect(await run(["--help"]).code).toBe(EXIT.ok);
    expect(out).toEqual([HELP]);
    expect(HELP).toMatch(/--store <store>/);
    expect(HELP).toMatch(/Exit codes/);
    out.length = 0;
    expect(await run(["--version"]).code).toBe(EXIT.ok);
    expect(out).toEqual([ownVersion()]);
  });

  it("exits with 2 on bad arguments, saying what was wrong", async () => {
    expect(await run(["my-app", "--store", "mongo"]).code).toBe(EXIT.usage);
    expect(err[0]).toContain("--store mongo: choose one of sqlite, postgres");
    expect(err[0]).toContain("--help");
    expect(await run(["Bad Name"]).code).toBe(EXIT.usage);
    expect(await run([]).code).toBe(EXIT.usage);
    expect(existsSync(join(work, "my-app"))).toBe(false);
  });

  it("exits with 1 on a folder that is not empty, naming it, and leaves it as it was", async () => {
    mkdirSync(join(work, "taken"));
    writeFileSync(join(work, "taken", "index.js"), "");
    expect(await run(["taken"]).code).toBe(EXIT.failed);
    expect(err[0]).toBe(
      `create-act-app: ${join(work, "taken")} is not empty (it holds index.js): a new project would mix with, or overwrite, what is there. Choose a new folder, or empty this one first`
    );
  });

  it("asks for what is missing only when a person is at the terminal and no folder was given", async () => {
    const asked = run([], ["todo", "postgres", "y"]);
    expect(await asked.code).toBe(EXIT.ok);
    expect(asked.questions).toHaveLength(3);
    const manifest = JSON.parse(readFileSync(join(work, "todo", "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies)).toEqual(
      expect.arrayContaining(["@act-root/act-pg", "@act-root/act-http"])
    );

    const flags = run(["flags-app", "--store", "sqlite"], []);
    expect(await flags.code).toBe(EXIT.ok);
    expect(flags.questions).toEqual([]);
  });

  it("takes the defaults for empty answers", async () => {
    const asked = run(["--no-http"], ["", ""]);
    expect(await asked.code).toBe(EXIT.ok);
    expect(asked.questions).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(work, "my-act-app", "package.json"), "utf8")).dependencies).toHaveProperty(
      "@act-root/act-sqlite"
    );
  });
});
