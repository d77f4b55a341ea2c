import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Choices } from "../lib/args.mjs";
import { dependencies, files, generate, TargetError, targetProblem } from "../lib/generate.mjs";
import { versions } from "../lib/versions.mjs";

const ranges = versions();
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "create-act-app-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const choices = (more: Partial<Choices> = {}): Choices => ({
  directory: join(work, "my-app"),
  name: "my-app",
  store: "sqlite",
  http: false,
  ...more,
});

describe("files", () => {
  it("makes a SQLite project by default: state, reaction, projection, tests, scripts", () => {
    const project = files(choices(), ranges);
    expect([...project.keys()].sort()).toEqual([
      ".gitignore",
      "README.md",
      "package.json",
      "src/app.ts",
      "src/main.ts",
      "src/open-tasks.ts",
      "src/store.ts",
      "src/todo.ts",
      "test/app.test.ts",
      "test/todo.test.ts",
      "tsconfig.json",
    ]);
    expect(project.get("src/store.ts")).toContain('from "@act-root/act-sqlite"');
    expect(project.get("src/open-tasks.ts")).toContain("projection<Connection>");
    const manifest = JSON.parse(project.get("package.json")!);
    expect(manifest).toMatchObject({ name: "my-app", private: true, type: "module" });
    expect(manifest.scripts).toEqual({
      dev: "tsx watch src/main.ts",
      start: "tsx src/main.ts",
      test: "vitest run",
      typecheck: "tsc",
    });
  });

  it("splices the store's and HTTP's parts into the README, with the project's name", () => {
    const readme = files(choices({ store: "postgres", http: true, name: "todo-api" }), ranges).get("README.md")!;
    expect(readme).toMatch(/^# todo-api\n/);
    expect(readme).toContain("## The store: PostgreSQL");
    expect(readme).toContain("docker run --name todo-api-db");
    expect(readme).toContain("## The HTTP API");
    expect(readme).not.toMatch(/<!--|\{\{/);
    const sqlite = files(choices(), ranges).get("README.md")!;
    expect(sqlite).toContain("## The store: SQLite");
    expect(sqlite).not.toContain("## The HTTP API");
  });

  it("takes the PostgreSQL store's files, and adds the HTTP route module and its test", () => {
    const project = files(choices({ store: "postgres", http: true }), ranges);
    expect(project.get("src/store.ts")).toContain('from "@act-root/act-pg"');
    expect(project.get("src/open-tasks.ts")).toContain("projection<pg.PoolClient>");
    expect(project.get("src/http.ts")).toContain('from "@act-root/act-http"');
    expect(project.get("src/main.ts")).toContain("@hono/node-server");
    expect(project.has("test/http.test.ts")).toBe(true);
  });
});

describe("dependencies", () => {
  it("names the store's package and driver, HTTP's when asked, at the repository's versions", () => {
    const sqlite = dependencies(choices(), ranges);
    expect(Object.keys(sqlite.dependencies)).toEqual(["@act-root/act", "@act-root/act-sqlite", "libsql", "zod"]);
    expect(Object.keys(sqlite.devDependencies)).toEqual(["@types/node", "tsx", "typescript", "vitest"]);
    expect(sqlite.dependencies["@act-root/act"]).toBe(ranges["@act-root/act"]);
    const pg = dependencies(choices({ store: "postgres", http: true }), ranges);
    expect(Object.keys(pg.dependencies)).toEqual([
      "@act-root/act",
      "@act-root/act-http",
      "@act-root/act-pg",
      "@hono/node-server",
      "hono",
      "pg",
      "zod",
    ]);
    expect(pg.devDependencies["@types/pg"]).toBe(ranges["@types/pg"]);
  });

  it("points at packed tarballs with --packs, relative to the project, and says which one is missing", () => {
    const packs = join(work, "packs");
    mkdirSync(packs);
    for (const name of ["act", "act-sqlite"]) writeFileSync(join(packs, `act-root-${name}.tgz`), "");
    const deps = dependencies(choices({ packs }), ranges).dependencies;
    expect(deps["@act-root/act"]).toBe("file:../packs/act-root-act.tgz");
    expect(deps["@act-root/act-sqlite"]).toBe("file:../packs/act-root-act-sqlite.tgz");
    expect(deps.zod).toBe(ranges.zod);
    expect(() => dependencies(choices({ packs, http: true }), ranges)).toThrow(
      `--packs ${packs}: no ${join(packs, "act-root-act-http.tgz")}`
    );
  });
});

describe("generate", () => {
  it("writes the project into a new folder", () => {
    const written = generate(choices(), ranges);
    expect(written).toContain("src/todo.ts");
    expect(readFileSync(join(work, "my-app", "src", "todo.ts"), "utf8")).toContain('state("TodoList"');
    expect(readFileSync(join(work, "my-app", ".gitignore"), "utf8")).toContain("node_modules/");
  });

  it("writes into an empty folder that exists", () => {
    mkdirSync(join(work, "my-app"));
    generate(choices(), ranges);
    expect(readdirSync(join(work, "my-app"))).toContain("package.json");
  });

  it("refuses a folder that is not empty, naming it and what it holds, and writes nothing", () => {
    const target = join(work, "my-app");
    mkdirSync(target);
    writeFileSync(join(target, "notes.txt"), "mine");
    expect(() => generate(choices(), ranges)).toThrow(TargetError);
    expect(targetProblem(target)).toBe(
      `${target} is not empty (it holds notes.txt): a new project would mix with, or overwrite, what is there. Choose a new folder, or empty this one first`
    );
    expect(readdirSync(target)).toEqual(["notes.txt"]);
  });

  it("refuses a path that is a file", () => {
    writeFileSync(join(work, "my-app"), "");
    expect(targetProblem(join(work, "my-app"))).toBe(`${join(work, "my-app")} exists and is not a folder`);
  });
});
