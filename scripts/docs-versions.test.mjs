import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "vitest";
import { releasedVersions, siteVersions, versionOptions, versionPath } from "./docs-versions.mjs";

describe("docs versions: what the site config serves", () => {
  let dir;
  const site = (files) => {
    dir = mkdtempSync(join(tmpdir(), "docs-versions-"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  test("no release cut: the current docs, labelled Next, are the only version, served at /docs/", () => {
    assert.deepEqual(siteVersions(site({}), "api"), { guides: [], api: [] });
    assert.deepEqual(versionOptions([]), {
      lastVersion: "current",
      onlyIncludeVersions: ["current"],
      versions: { current: { label: "Next" } },
    });
    assert.equal(versionPath("current", []), "");
  });

  test("a cut release is served at /docs/, Next at /docs/next/ with the unreleased banner", () => {
    const options = versionOptions(["0.2.0", "0.1.0"]);
    assert.equal(options.lastVersion, "0.2.0");
    assert.deepEqual(options.onlyIncludeVersions, ["current", "0.2.0", "0.1.0"]);
    assert.deepEqual(options.versions.current, { label: "Next", path: "next", banner: "unreleased" });
    assert.deepEqual(options.versions["0.1.0"], { label: "0.1.0" });
    assert.equal(versionPath("0.2.0", ["0.2.0", "0.1.0"]), "");
    assert.equal(versionPath("0.1.0", ["0.2.0", "0.1.0"]), "0.1.0");
    assert.equal(versionPath("current", ["0.2.0", "0.1.0"]), "next");
  });

  test("guides and API cut at different versions stop the build, except during a cut", () => {
    const dir = site({ "versions.json": '["0.1.0"]', "api_versions.json": "[]" });
    assert.throws(
      () => siteVersions(dir, "api", {}),
      /guides are cut at \[0\.1\.0\].*API reference at \[\].*cut-docs-version/
    );
    assert.deepEqual(siteVersions(dir, "api", { ACT_DOCS_CUTTING: "1" }), { guides: ["0.1.0"], api: [] });
  });

  test("a versions file that is not a list of names is refused with its path", () => {
    const dir = site({ "versions.json": '{"0.1.0": true}' });
    assert.throws(() => releasedVersions(dir, "default"), /versions\.json must be a JSON array of version names/);
  });
});
