// The API reference's page list leaves the global data only where the
// navbar can still tell each page's sidebar without it.
import assert from "node:assert/strict";
import { validateOptions } from "@docusaurus/plugin-content-docs";
import { describe, test } from "vitest";
import docsWithoutPageList, { type GlobalDocsData, type GlobalVersion, withoutPageList } from "./index";

const doc = (id: string, sidebar?: string, extra: object = {}) => ({ id, path: `/api/${id}`, sidebar, ...extra });
const data = (version: Partial<GlobalVersion>): GlobalDocsData => ({
  path: "/api",
  breadcrumbs: true,
  versions: [{ name: "current", mainDocId: "index", docs: [], sidebars: { api: {} }, ...version }],
});

describe("docs-without-page-list: the page list leaves the global data only where it tells nothing", () => {
  test("a version whose pages are all in its one sidebar keeps only its main page, and names the sidebar", () => {
    const [version] = withoutPageList(
      data({ docs: [doc("index", "api"), doc("classes/Act", "api"), doc("functions/act", "api")] })
    ).versions;
    assert.deepEqual(version.docs, [doc("index", "api")]);
    assert.equal(version.omittedSidebar, "api");
    assert.equal(version.name, "current", "the rest of the version is kept");
  });

  test("pages outside the sidebar, and unlisted ones, stay in the list", () => {
    const [version] = withoutPageList(
      data({
        docs: [doc("index", "api"), doc("a", "api"), doc("loose"), doc("hidden", "api", { unlisted: true })],
      })
    ).versions;
    assert.deepEqual(
      version.docs.map((d) => d.id),
      ["index", "loose", "hidden"]
    );
    assert.equal(version.omittedSidebar, "api");
  });

  test("a version with several sidebars, or with nothing to leave out, is unchanged", () => {
    const several = data({ docs: [doc("index", "a"), doc("x", "b")], sidebars: { a: {}, b: {} } });
    assert.deepEqual(withoutPageList(several), several);
    const onlyMain = data({ docs: [doc("index", "api")] });
    assert.deepEqual(withoutPageList(onlyMain), onlyMain);
    assert.equal(withoutPageList(onlyMain).versions[0].omittedSidebar, undefined);
  });

  test("the wrapper validates its options with the docs plugin's own validation", () => {
    assert.equal(docsWithoutPageList.validateOptions, validateOptions);
  });
});
