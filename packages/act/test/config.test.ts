import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { config, ValidationError } from "../src/index.js";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

const inFolder = (pkg?: string) => {
  const dir = mkdtempSync(join(tmpdir(), "act-config-"));
  if (pkg !== undefined) writeFileSync(join(dir, "package.json"), pkg);
  vi.spyOn(process, "cwd").mockReturnValue(dir);
};

describe("config", () => {
  it("reads the package facts and the environment", () => {
    inFolder(JSON.stringify({ name: "app", version: "1.2.3", description: "d", author: "me", license: "MIT", dependencies: { zod: "^4" }, scripts: {} }));
    process.env.NODE_ENV = "production";
    process.env.LOG_LEVEL = "warn";
    process.env.LOG_SINGLE_LINE = "false";
    process.env.SLEEP_MS = "250";
    expect(config()).toEqual({
      name: "app", version: "1.2.3", description: "d", author: "me", license: "MIT", dependencies: { zod: "^4" },
      env: "production", logLevel: "warn", logSingleLine: false, sleepMs: 250,
    });
  });

  it("says which Node.js it needs instead of silently losing the package facts", () => {
    const original = process.getBuiltinModule;
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
    try {
      expect(() => config()).toThrow(/config\(\) needs Node\.js 20\.16 or later/);
    } finally {
      process.getBuiltinModule = original;
    }
  });

  it("works without a package.json and picks defaults per environment", () => {
    inFolder();
    delete process.env.LOG_LEVEL;
    delete process.env.SLEEP_MS;
    delete process.env.LOG_SINGLE_LINE;
    process.env.NODE_ENV = "test";
    expect(config()).toMatchObject({ name: "", version: "0.0.0", env: "test", logLevel: "fatal", logSingleLine: true, sleepMs: 0 });
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
