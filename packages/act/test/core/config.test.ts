import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { config, ValidationError } from "../../src/index.js";

const saved = { ...process.env };
const folders: string[] = [];
afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const inFolder = (pkg?: string) => {
  const dir = mkdtempSync(join(tmpdir(), "act-config-"));
  folders.push(dir);
  if (pkg !== undefined) writeFileSync(join(dir, "package.json"), pkg);
  vi.spyOn(process, "cwd").mockReturnValue(dir);
};

describe("config", () => {
  it("reads the package facts and the environment", () => {
    inFolder(
      JSON.stringify({
        name: "app",
        version: "1.2.3",
        description: "d",
        author: "me",
        license: "MIT",
        dependencies: { zod: "^4" },
        scripts: {},
      })
    );
    process.env.NODE_ENV = "production";
    process.env.LOG_LEVEL = "warn";
    process.env.LOG_SINGLE_LINE = "false";
    process.env.SLEEP_MS = "250";
    expect(config()).toEqual({
      name: "app",
      version: "1.2.3",
      description: "d",
      author: "me",
      license: "MIT",
      dependencies: { zod: "^4" },
      env: "production",
      logLevel: "warn",
      logSingleLine: false,
      sleepMs: 250,
    });
  });

  it("returns the name and version of the package.json in the working folder", () => {
    const folder = fileURLToPath(new URL("../..", import.meta.url));
    vi.spyOn(process, "cwd").mockReturnValue(folder);
    const pkg = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
    expect(config()).toMatchObject({ name: "@act-root/act", version: pkg.version });
  });

  /** Runs `body` as on Node 20.0–20.15: no process.getBuiltinModule, and `main` as the main module. */
  const onOlderNode = async (main: { require: NodeJS.Require } | undefined, body: () => unknown) => {
    const proc = process as { getBuiltinModule?: unknown; mainModule?: unknown };
    const saved = { getBuiltinModule: proc.getBuiltinModule, mainModule: proc.mainModule };
    proc.getBuiltinModule = undefined;
    proc.mainModule = main;
    try {
      return await body();
    } finally {
      Object.assign(proc, saved);
    }
  };

  it("reads package.json on Node before 20.16 in a CommonJS app", async () => {
    inFolder(JSON.stringify({ name: "cjs-app", version: "2.0.0" }));
    await onOlderNode({ require: createRequire(import.meta.url) }, () =>
      expect(config()).toMatchObject({ name: "cjs-app", version: "2.0.0" })
    );
  });

  it("reads package.json on Node before 20.16 in an ES module once fs has loaded, and warns about an earlier call", async () => {
    inFolder(JSON.stringify({ name: "esm-app", version: "3.0.0" }));
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    await onOlderNode(undefined, async () => {
      // The first call finds no synchronous fs: it says so instead of silently returning nothing.
      expect(config()).toMatchObject({ name: "", version: "0.0.0" });
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/could not read package\.json yet: Node\.js .* 20\.16/);
      await vi.waitFor(() => expect(config()).toMatchObject({ name: "esm-app", version: "3.0.0" }));
    });
  });

  it("works without a package.json and picks defaults per environment", () => {
    inFolder();
    delete process.env.LOG_LEVEL;
    delete process.env.SLEEP_MS;
    delete process.env.LOG_SINGLE_LINE;
    process.env.NODE_ENV = "test";
    expect(config()).toMatchObject({
      name: "",
      version: "0.0.0",
      env: "test",
      logLevel: "fatal",
      logSingleLine: true,
      sleepMs: 0,
    });
    delete process.env.NODE_ENV;
    expect(config()).toMatchObject({ env: "development", logLevel: "debug" });
    process.env.NODE_ENV = "production";
    expect(config().logLevel).toBe("info");
  });

  it.each([
    ["NODE_ENV", "prod"],
    ["LOG_LEVEL", "loud"],
    ["LOG_SINGLE_LINE", "yes"],
    ["SLEEP_MS", "soon"],
  ])("names the bad variable %s", (name, value) => {
    inFolder();
    process.env[name] = value;
    expect(() => config()).toThrow(ValidationError);
    expect(() => config()).toThrow(new RegExp(`environment variable ${name}`));
  });

  it("names a package.json that is not JSON", () => {
    inFolder("{ nope");
    expect(() => config()).toThrow(/package\.json/);
  });
});
