import assert from "node:assert/strict";
import { test } from "vitest";
import { isChunkLoadError } from "./chunk-failure";

test("the bundler's load failures are recognised, other rejections are not", () => {
  const named = Object.assign(new Error("Loading chunk 125 failed."), { name: "ChunkLoadError" });
  assert.equal(isChunkLoadError(named), true);
  assert.equal(isChunkLoadError(new Error("Loading CSS chunk 7 failed.\n(/act-root/assets/css/7.css)")), true);
  assert.equal(isChunkLoadError(new Error("Failed to fetch")), false, "a page's own fetch is not the page's code");
  assert.equal(isChunkLoadError("Loading chunk 1 failed."), false, "not an Error");
  assert.equal(isChunkLoadError(undefined), false);
});
