import assert from "node:assert/strict";
import { describe, test } from "vitest";
import { checkAccessible } from "./index";
import { scopeIds } from "./scope-ids";

describe("diagrams: what a rendered diagram must carry", () => {
  test("a diagram without accTitle and accDescr fails the build, naming the file", () => {
    assert.throws(
      () => checkAccessible("flowchart LR\n  a --> b", "docs/x.mdx"),
      /docs\/x\.mdx: .*accTitle and accDescr/
    );
    assert.throws(() => checkAccessible("flowchart LR\n  accTitle: A\n  a --> b", "docs/x.mdx"), /needs accDescr\b/);
    assert.doesNotThrow(() => checkAccessible("flowchart LR\n  accTitle: A\n  accDescr: B\n  a --> b", "docs/x.mdx"));
  });

  test("inner ids and their references are prefixed by the root id; the root keeps its own", () => {
    const svg =
      '<svg id="d-light" aria-labelledby="title-1"><title id="title-1">T</title><marker id="arrowhead"/>' +
      '<line marker-end="url(#arrowhead)"/><use href="#arrowhead-2"/><g id="arrowhead-2"/><style>#d-light .x{fill:#333}</style></svg>';
    const out = scopeIds(svg, "d-light");
    assert.match(out, /<svg id="d-light" aria-labelledby="d-light-title-1">/);
    assert.match(out, /<marker id="d-light-arrowhead"\/>/);
    assert.match(out, /url\(#d-light-arrowhead\)/);
    assert.match(out, /href="#d-light-arrowhead-2"/);
    assert.match(out, /<g id="d-light-arrowhead-2"\/>/);
    assert.match(out, /#d-light \.x\{fill:#333\}/, "colours and the root's own selector are untouched");
  });
});
