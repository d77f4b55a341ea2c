import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ownVersion, PACKAGE_DIR, repositoryVersions, versions } from "../lib/versions.mjs";

const root = join(PACKAGE_DIR, "..", "..");
const manifest = (folder: string) => JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8"));

describe("versions", () => {
  it("are the repository's: Act's packages at their version, third parties at the repository's ranges", () => {
    const ranges = versions();
    expect(ranges["@act-root/act"]).toBe(`^${manifest("packages/act").version}`);
    expect(ranges["@act-root/act-sqlite"]).toBe(`^${manifest("packages/act-sqlite").version}`);
    expect(ranges["@act-root/act-pg"]).toBe(`^${manifest("packages/act-pg").version}`);
    expect(ranges["@act-root/act-http"]).toBe(`^${manifest("packages/act-http").version}`);
    expect(ranges.zod).toBe(manifest("packages/act").dependencies.zod);
    expect(ranges.libsql).toBe(manifest("packages/act-sqlite").dependencies.libsql);
    expect(ranges.vitest).toBe(manifest(".").devDependencies.vitest);
    expect(ranges.typescript).toBe(manifest(".").devDependencies.typescript);
  });

  it("keep the command at the version of the packages it installs, which are released together", () => {
    expect(ownVersion()).toBe(manifest("packages/act").version);
  });

  it("name the manifest that lacks a range", () => {
    const copy = mkdtempSync(join(tmpdir(), "versions-"));
    try {
      for (const folder of [
        "packages/act",
        "packages/act-sqlite",
        "packages/act-pg",
        "packages/act-http",
        "packages/wolfdesk-http",
      ])
        cpSync(join(root, folder, "package.json"), join(copy, folder, "package.json"));
      const { zod: _, ...rest } = manifest("packages/act").dependencies;
      writeFileSync(
        join(copy, "packages/act/package.json"),
        JSON.stringify({ ...manifest("packages/act"), dependencies: rest })
      );
      cpSync(join(root, "package.json"), join(copy, "package.json"));
      expect(() => repositoryVersions(copy)).toThrow(
        `${join(copy, "packages/act/package.json")} names no dependencies range for zod`
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
