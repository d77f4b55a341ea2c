// The site after its first release, built from a copy of this repository
// (scripts/versioned-site.mjs): the packages' version cut with
// scripts/cut-docs-version.mjs, then Next moved on (a line in the intro, a
// function in the API). The repository itself has no cut version yet; this
// is what the first cut will give readers. `npm run test:site-versions`.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, test } from "vitest";
import { brokenLinks } from "./site-links.mjs";
import { buildVersionedSite, NEXT_ONLY_FUNCTION, NEXT_ONLY_TEXT } from "./versioned-site.mjs";

const BASE = "/act-root/";
let site;

/** The HTML of a route of the copy's build (trailingSlash unset: x/index.html). */
function html(route) {
  const file = join(site.build, route.slice(BASE.length), "index.html");
  assert.ok(existsSync(file), `${route} is not a page of the versioned build`);
  return readFileSync(file, "utf8");
}

describe("the site with a cut release", () => {
  // ACT_VERSIONED_SITE=<dir> checks a copy `node scripts/versioned-site.mjs <dir>` built before.
  const reused = process.env.ACT_VERSIONED_SITE;
  beforeAll(async () => {
    if (reused) {
      const dir = resolve(reused);
      const log = readFileSync(join(dir, "build.log"), "utf8");
      const version = JSON.parse(readFileSync(join(dir, "versions.json"), "utf8"))[0];
      site = { dir, build: join(dir, "build"), log, version };
    } else site = await buildVersionedSite(join(mkdtempSync(join(tmpdir(), "act-versioned-")), "site"));
  }, 900_000);
  afterAll(async () => {
    if (site && !reused) await rm(join(site.dir, ".."), { recursive: true, force: true });
  }, 120_000);

  test("the release is served at /docs/ and Next at /docs/next/, guides and API alike", () => {
    const v = site.version;
    for (const route of ["docs/intro", "docs/api/", "docs/api/act/src/classes/Act"]) {
      assert.match(html(`${BASE}${route}`), /<html/);
      assert.match(
        html(`${BASE}${route.replace("docs/", "docs/next/").replace("docs/next/api/", "docs/api/next/")}`),
        /<html/
      );
    }
    // Next moved on; the release kept what it had.
    assert.match(html(`${BASE}docs/next/intro`), new RegExp(NEXT_ONLY_TEXT));
    assert.doesNotMatch(html(`${BASE}docs/intro`), new RegExp(NEXT_ONLY_TEXT));
    assert.match(html(`${BASE}docs/api/next/act/src/functions/${NEXT_ONLY_FUNCTION}`), /<html/);
    assert.equal(existsSync(join(site.build, `docs/api/act/src/functions/${NEXT_ONLY_FUNCTION}`)), false);
    // The announcement bar points at the release's notes.
    assert.match(html(`${BASE}docs/intro`), new RegExp(`Act ${v.replaceAll(".", "\\.")} is released`));
    // Next says it is unreleased.
    assert.match(html(`${BASE}docs/next/intro`), /unreleased documentation/i);
    assert.doesNotMatch(html(`${BASE}docs/intro`), /unreleased documentation/i);
  });

  test("the navbar's version menu lists Next and the release, on the same page of each", () => {
    // The dropdown menu whose items include Next (the other one is the locale's).
    const versionMenu = (page) =>
      [...page.matchAll(/<ul class="?dropdown__menu[^>]*>([\s\S]*?)<\/ul>/g)]
        .map((m) => m[1])
        .find((items) => />Next</.test(items)) ?? "";
    const guide = versionMenu(html(`${BASE}docs/guides/testing`));
    // An item: its link (attributes may follow href, quotes are optional), then its label.
    const item = (href, label) => new RegExp(`href="?${href}"?(\\s[^>]*)?>${label.replaceAll(".", "\\.")}<`);
    assert.match(guide, item(`${BASE}docs/next/guides/testing`, "Next"));
    assert.match(guide, item(`${BASE}docs/guides/testing`, site.version));
    // On an API page the menu switches the API reference's version.
    const api = versionMenu(html(`${BASE}docs/api/act/src/classes/Act`));
    assert.match(api, new RegExp(`href="?${BASE}docs/api/next/act/src/classes/Act"?[\\s>]`));
  });

  test("a page's links to the API and the guides stay in its version", () => {
    const next = html(`${BASE}docs/next/guides/deploying-and-upgrading`);
    assert.match(next, /href="?\/act-root\/docs\/api\/next\/act\/src\/functions\/dispose/);
    assert.doesNotMatch(next, /href="?\/act-root\/docs\/api\/act\/src\//);
    const released = html(`${BASE}docs/guides/deploying-and-upgrading`);
    assert.match(released, /href="?\/act-root\/docs\/api\/act\/src\/functions\/dispose/);
  });

  test("the release notes have the release's section, in the release and in Next", () => {
    const id = `v${site.version.replace(/[^0-9A-Za-z]+/g, "-")}`;
    for (const route of ["docs/guides/release-notes", "docs/next/guides/release-notes"]) {
      const page = html(`${BASE}${route}`);
      assert.match(page, new RegExp(`id="?${id}"?[\\s>]`), route);
      assert.match(page, /Released \d{4}-\d{2}-\d{2}\./, route);
    }
    assert.match(html(`${BASE}docs/next/guides/release-notes`), /id="?unreleased"?[\s>]/);
  });

  test("every internal link of the versioned build reaches a page, and every anchor an element", () => {
    assert.deepEqual(brokenLinks(site.build, BASE), []);
    assert.doesNotMatch(site.log, /broken (links|anchors)|couldn't be resolved/i);
  });
});
