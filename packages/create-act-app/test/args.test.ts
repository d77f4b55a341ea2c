import { describe, expect, it } from "vitest";
import { choose, nameProblem, parse, UsageError } from "../lib/args.mjs";

describe("parse", () => {
  it("reads the folder and the options", () => {
    expect(parse(["my-app", "--store", "postgres", "--http"])).toMatchObject({
      directory: "my-app",
      store: "postgres",
      http: true,
      help: false,
      version: false,
    });
    expect(parse(["--store=sqlite", "my-app", "--no-http"])).toMatchObject({ store: "sqlite", http: false });
    expect(parse(["-h"]).help).toBe(true);
    expect(parse(["-v"]).version).toBe(true);
  });

  it("leaves out what the command line did not say", () => {
    expect(parse([])).toMatchObject({ directory: undefined, store: undefined, http: undefined, name: undefined });
  });

  it("refuses an unknown option, a missing value, two folders and contradicting flags", () => {
    expect(() => parse(["my-app", "--sotre", "pg"])).toThrow(UsageError);
    expect(() => parse(["my-app", "--sotre", "pg"])).toThrow(/--sotre/);
    expect(() => parse(["my-app", "--store"])).toThrow(/--store/);
    expect(() => parse(["a", "b"])).toThrow('one folder at a time: got "a", "b"');
    expect(() => parse(["a", "--http", "--no-http"])).toThrow(/contradict/);
  });
});

describe("nameProblem", () => {
  it("accepts npm names", () => {
    for (const name of ["my-app", "app2", "a.b_c~d", "@acme/todo"]) expect(nameProblem(name), name).toBeUndefined();
  });

  it("says what is wrong with a name npm refuses", () => {
    expect(nameProblem("")).toBe("it is empty");
    expect(nameProblem("My-App")).toBe("it has capital letters");
    expect(nameProblem("my app")).toMatch(/" ", which is not allowed/);
    expect(nameProblem(".hidden")).toBe('it starts with "."');
    expect(nameProblem("_private")).toBe('it starts with "_"');
    expect(nameProblem("a".repeat(215))).toMatch(/215 characters long/);
    expect(nameProblem("fs")).toMatch(/reserved/);
    expect(nameProblem("node_modules")).toMatch(/reserved/);
    expect(nameProblem("@acme/a/b")).toMatch(/one slash/);
    expect(nameProblem("café")).toMatch(/"é"/);
  });
});

describe("choose", () => {
  it("defaults to SQLite, no HTTP, and the folder's name", () => {
    expect(choose(parse(["my-app"]), "/tmp/x")).toEqual({
      directory: "/tmp/x/my-app",
      name: "my-app",
      store: "sqlite",
      http: false,
    });
  });

  it("takes the store, HTTP, a name and a packs folder", () => {
    expect(
      choose(parse(["apps/Todo", "--store", "postgres", "--http", "--name", "todo", "--packs", "../packs"]), "/w")
    ).toEqual({ directory: "/w/apps/Todo", name: "todo", store: "postgres", http: true, packs: "/packs" });
  });

  it("refuses an unknown store, no folder, and a folder name npm refuses, saying which", () => {
    expect(() => choose(parse(["my-app", "--store", "mongo"]), "/w")).toThrow(
      "--store mongo: choose one of sqlite, postgres"
    );
    expect(() => choose(parse([]), "/w")).toThrow(/name the folder/);
    expect(() => choose(parse(["My App"]), "/w")).toThrow(
      'the folder name "My App" is not a valid npm package name: it has capital letters. Choose another folder name, or give the package\'s name with --name'
    );
    expect(() => choose(parse(["ok", "--name", "Bad"]), "/w")).toThrow('--name "Bad" is not a valid npm package name');
  });
});
