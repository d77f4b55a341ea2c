// The cut script's own logic, in a small temporary site: its refusals (from
// the command line, as a releaser meets them) and what it writes around
// Docusaurus' `docs:version`, which a stand-in replaces here. The real cut —
// Docusaurus and TypeDoc in a copy of this repository, then a build of it —
// is checked by scripts/site-versions.test.mjs (`npm run test:site-versions`).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, test } from "vitest";
import { compareVersions, cutDocsVersion } from "./cut-docs-version.mjs";

const script = join(dirname(fileURLToPath(import.meta.url)), "cut-docs-version.mjs");
const NOTES = `---\ntitle: Release notes\n---\n\n# Release notes\n\n## Unreleased\n\n- \`query_array\` is \`queryArray\`.\n`;

let site;
afterEach(() => site && rmSync(site, { recursive: true, force: true }));

/** A site folder with the packages at `packageVersion`, the release notes page (none for `notes: null`) and the given files. */
function makeSite({ packageVersion = "0.1.0", notes = NOTES, files = {} } = {}) {
  site = mkdtempSync(join(tmpdir(), "cut-docs-"));
  const write = (path, text) => {
    mkdirSync(dirname(join(site, path)), { recursive: true });
    writeFileSync(join(site, path), text);
  };
  write("packages/act/package.json", JSON.stringify({ name: "@act-root/act", version: packageVersion }));
  write("packages/calculator/src/calculator.ts", "export const calculator = 1;\n");
  write(
    "docs/examples/calculator.mdx",
    "import Source from '!!raw-loader!@site/packages/calculator/src/calculator.ts';\n\n# Calculator\n"
  );
  write("docs-api/index.md", "# API\n");
  if (notes !== null) write("docs/guides/release-notes.mdx", notes);
  for (const [path, text] of Object.entries(files)) write(path, text);
  return site;
}

/** Every file of the site folder, with its text. */
function snapshot(dir) {
  const files = {};
  const walk = (sub) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return files;
}

/** What `docusaurus docs:version[:api] <v>` does to the files, without Docusaurus. */
function docsVersion(siteDir, [command, version]) {
  const api = command === "docs:version:api";
  cpSync(
    join(siteDir, api ? "docs-api" : "docs"),
    join(siteDir, api ? "api_versioned_docs" : "versioned_docs", `version-${version}`),
    {
      recursive: true,
    }
  );
  const file = join(siteDir, api ? "api_versions.json" : "versions.json");
  const versions = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : [];
  writeFileSync(file, JSON.stringify([version, ...versions]));
}

function cli(...args) {
  return spawnSync(process.execPath, [script, ...args, "--site", site], { encoding: "utf8" });
}

describe("cut-docs-version: refuses a cut that would be wrong, before writing anything", () => {
  const refused = (args, message, options) => {
    makeSite(options);
    const before = snapshot(site);
    const run = cli(...args);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "a refusal is a message, not a stack");
    assert.deepEqual(snapshot(site), before, "nothing written");
  };

  test("no version", () => refused([], /which version\? Usage: node scripts\/cut-docs-version\.mjs <version>/));
  test("not MAJOR.MINOR.PATCH", () => {
    for (const bad of ["v0.1.0", "0.1", "current", "next", "0.1.0/x", "01.2.3"])
      refused(
        [bad],
        new RegExp(`"${bad.replaceAll(".", "\\.")}" is not a release version: write MAJOR\\.MINOR\\.PATCH`)
      );
  });
  test("two versions", () => refused(["0.1.0", "0.2.0"], /one version at a time/));
  test("a version already cut", () =>
    refused(["0.1.0"], /0\.1\.0 is already cut \(versions\.json lists it\)/, {
      files: { "versions.json": '["0.1.0"]', "api_versions.json": '["0.1.0"]' },
    }));
  test("a version older than the newest cut", () =>
    refused(["0.1.0"], /0\.1\.0 is not newer than 0\.2\.0, the newest version cut/, {
      files: { "versions.json": '["0.2.0"]', "api_versions.json": '["0.2.0"]' },
    }));
  test("guides and API cut at different versions", () =>
    refused(["0.2.0"], /versions\.json lists \[0\.1\.0\] but api_versions\.json \[\]/, {
      files: { "versions.json": '["0.1.0"]' },
    }));
  test("a version the packages are not at", () =>
    refused(
      ["0.2.0"],
      /the packages are at 0\.1\.0 \(packages\/act\/package\.json\), not 0\.2\.0: set the release's version/
    ));
  test("no release notes page, or no Unreleased section on it", () => {
    refused(["0.1.0"], /docs\/guides\/release-notes\.mdx is missing/, { notes: null });
    refused(["0.1.0"], /exactly one "## Unreleased" heading/, { notes: "# Release notes\n" });
  });
});

describe("cut-docs-version: what a cut writes besides Docusaurus' copies", () => {
  test("the release notes get the version's section, and the release shows its own example code", () => {
    makeSite();
    const { sources } = cutDocsVersion({ siteDir: site, version: "0.1.0", date: "2026-11-29", run: docsVersion });
    const notes = readFileSync(join(site, "docs/guides/release-notes.mdx"), "utf8");
    assert.match(notes, /## Unreleased\n\nNothing yet\./);
    assert.match(notes, /## 0\.1\.0 \\\{#v0-1-0\\\}\n\nReleased 2026-11-29\.\n\n- `query_array` is `queryArray`\.\n/);
    // The cut copy of the page has the section too (the notes are written first).
    assert.match(
      readFileSync(join(site, "versioned_docs/version-0.1.0/guides/release-notes.mdx"), "utf8"),
      /## 0\.1\.0/
    );
    assert.deepEqual(sources, ["versioned_docs/version-0.1.0/_sources/packages/calculator/src/calculator.ts"]);
    assert.match(
      readFileSync(join(site, "versioned_docs/version-0.1.0/examples/calculator.mdx"), "utf8"),
      /'!!raw-loader!@site\/versioned_docs\/version-0\.1\.0\/_sources\/packages\/calculator\/src\/calculator\.ts'/
    );
    // The current page still shows the workspace file.
    assert.match(readFileSync(join(site, "docs/examples/calculator.mdx"), "utf8"), /@site\/packages\/calculator/);
    assert.deepEqual(JSON.parse(readFileSync(join(site, "versions.json"), "utf8")), ["0.1.0"]);
    assert.deepEqual(JSON.parse(readFileSync(join(site, "api_versions.json"), "utf8")), ["0.1.0"]);
  });

  test("a failing Docusaurus run leaves the site as it was", () => {
    makeSite();
    const before = snapshot(site);
    const failing = (siteDir, args) => {
      if (args[0] === "docs:version:api") throw new Error("TypeDoc failed");
      docsVersion(siteDir, args);
    };
    assert.throws(() => cutDocsVersion({ siteDir: site, version: "0.1.0", run: failing }), /TypeDoc failed/);
    assert.deepEqual(snapshot(site), before);
    assert.equal(existsSync(join(site, "versioned_docs/version-0.1.0")), false);
  });

  test("a shown file outside the site is refused", () => {
    makeSite({ files: { "docs/x.mdx": "import S from '!!raw-loader!@site/../secret.ts';\n" } });
    assert.throws(
      () => cutDocsVersion({ siteDir: site, version: "0.1.0", run: docsVersion }),
      /x\.mdx shows \.\.\/secret\.ts, which is not a file of the site/
    );
    assert.equal(existsSync(join(site, "versions.json")), false);
  });
});

describe("cut-docs-version: versions in semver order", () => {
  test("numbers compare as numbers, a prerelease before its release", () => {
    assert.ok(compareVersions("0.10.0", "0.9.9") > 0);
    assert.ok(compareVersions("1.0.0-rc.1", "1.0.0") < 0);
    assert.ok(compareVersions("1.0.0-rc.10", "1.0.0-rc.9") > 0);
    assert.equal(compareVersions("0.1.0", "0.1.0"), 0);
  });
});
