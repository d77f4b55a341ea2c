import assert from "node:assert/strict";
import { describe, test } from "vitest";
import remarkVersionedLinks, { versionedUrl, versionOfFile } from "./index";

describe("versioned links: a page's site links stay in its version", () => {
  test("the version of a page comes from its folder", () => {
    assert.equal(versionOfFile("/site/docs/guides/testing.mdx"), "current");
    assert.equal(versionOfFile("/site/docs-api/act/src/functions/act.md"), "current");
    assert.equal(versionOfFile("/site/versioned_docs/version-0.1.0/intro.mdx"), "0.1.0");
    assert.equal(versionOfFile("/site/api_versioned_docs/version-1.0.0-rc.1/index.md"), "1.0.0-rc.1");
  });

  test("no release cut: every link is left as written", () => {
    assert.equal(versionedUrl("/docs/api/act/src/functions/act", "current", []), "/docs/api/act/src/functions/act");
  });

  test("the newest release is served at /docs/: its links are left as written", () => {
    assert.equal(versionedUrl("/docs/api/act/src/", "0.2.0", ["0.2.0", "0.1.0"]), "/docs/api/act/src/");
    assert.equal(versionedUrl("/docs/guides/testing#x", "0.2.0", ["0.2.0", "0.1.0"]), "/docs/guides/testing#x");
  });

  test("Next links Next's API and guides; an older release its own", () => {
    const released = ["0.2.0", "0.1.0"];
    assert.equal(
      versionedUrl("/docs/api/act/src/classes/Act#load", "current", released),
      "/docs/api/next/act/src/classes/Act#load"
    );
    assert.equal(versionedUrl("/docs/guides/testing", "current", released), "/docs/next/guides/testing");
    assert.equal(versionedUrl("/docs/api/", "0.1.0", released), "/docs/api/0.1.0/");
    assert.equal(versionedUrl("/act-root/docs/intro", "0.1.0", released), "/act-root/docs/0.1.0/intro");
  });

  test("links that name a version, and links elsewhere, are left as written", () => {
    const released = ["0.2.0", "0.1.0"];
    assert.equal(versionedUrl("/docs/api/0.1.0/act/src/", "current", released), "/docs/api/0.1.0/act/src/");
    assert.equal(versionedUrl("/docs/next/intro", "0.1.0", released), "/docs/next/intro");
    assert.equal(versionedUrl("./faq.mdx#stability", "current", released), "./faq.mdx#stability");
    assert.equal(versionedUrl("https://example.org/docs/api/", "current", released), "https://example.org/docs/api/");
    assert.equal(versionedUrl("/docsearch", "current", released), "/docsearch");
  });

  test("the plugin rewrites links and link definitions of a versioned page", () => {
    const link = { type: "link", url: "/docs/api/act/src/", children: [] };
    const definition = { type: "definition", url: "/docs/intro" };
    const tree = { type: "root", children: [{ type: "paragraph", children: [link] }, definition] };
    remarkVersionedLinks({ released: ["0.2.0", "0.1.0"] })(tree, {
      path: "/site/versioned_docs/version-0.1.0/intro.mdx",
    });
    assert.equal(link.url, "/docs/api/0.1.0/act/src/");
    assert.equal(definition.url, "/docs/0.1.0/intro");
  });
});
