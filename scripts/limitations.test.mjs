// @ts-check
// npx vitest run --project site scripts/limitations.test.mjs — every
// capability page of the docs ends with a `## Limitations` section
// (scripts/limitations.mjs), every page of docs/guides and docs/concepts is
// classified, and the check finds a page without the section.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "vitest";
import { CAPABILITY_PAGES, limitationsProblems, OTHER_PAGES } from "./limitations.mjs";

const docs = fileURLToPath(new URL("../docs", import.meta.url));

test("every page of the guides and concepts is a capability page or says why it is not", () => {
  const pages = ["guides", "concepts"].flatMap((dir) =>
    readdirSync(join(docs, dir))
      .filter((file) => /\.mdx?$/.test(file))
      .map((file) => `${dir}/${file.replace(/\.mdx?$/, "")}`)
  );
  const classified = new Set([...CAPABILITY_PAGES, ...Object.keys(OTHER_PAGES)]);
  assert.deepEqual(
    pages.filter((page) => !classified.has(page)),
    [],
    "add each new page to CAPABILITY_PAGES or OTHER_PAGES in scripts/limitations.mjs"
  );
  assert.deepEqual(
    [...classified].filter((page) => !pages.includes(page)),
    [],
    "scripts/limitations.mjs lists a page that is gone"
  );
});

test.each(CAPABILITY_PAGES)("docs/%s ends with its limitations", (page) => {
  const file = ["mdx", "md"].map((ext) => join(docs, `${page}.${ext}`)).find((path) => existsSync(path));
  assert.ok(file, `docs/${page}.mdx is missing`);
  assert.deepEqual(limitationsProblems(readFileSync(file, "utf8")), []);
});

test("finds a page without the section, one where it is not last, and an empty one", () => {
  const page = (...parts) => ["# Title", "", "Intro.", "", ...parts].join("\n");
  assert.deepEqual(limitationsProblems(page("## Use", "", "Text.")), ['no "## Limitations" section']);
  // A heading inside a code block is not a section.
  assert.deepEqual(limitationsProblems(page("```md", "## Limitations", "- a", "- b", "```")), [
    'no "## Limitations" section',
  ]);
  assert.deepEqual(limitationsProblems(page("## Limitations", "", "- a", "- b", "", "## Later", "", "Text.")), [
    '"## Limitations" is followed by "## Later": it must be the last section',
  ]);
  assert.deepEqual(limitationsProblems(page("## Limitations", "", "Nothing to say.")), [
    '"## Limitations" lists 0 item(s): say what the capability does not do',
  ]);
  assert.deepEqual(
    limitationsProblems(page("## Limitations", "", "- a", "- b", "", "## API on this page", "", "[x](y)")),
    []
  );
});
