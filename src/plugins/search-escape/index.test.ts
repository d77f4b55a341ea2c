// The search plugin's path joiner is still where the swap expects it, so an
// upgrade that moves it fails here instead of silently undoing the swap.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, test } from "vitest";
import { ESCAPING_JOINER, JOINER_REQUEST, SEARCH_BAR_FOLDER, isSearchBarJoiner } from "./index";

const require = createRequire(import.meta.url);

describe("search-escape: the search plugin's path joiner is where the swap expects it", () => {
  const pluginDir = dirname(require.resolve("@easyops-cn/docusaurus-search-local/package.json"));
  const searchBar = join(pluginDir, "dist/client/client/theme/SearchBar");

  test("the suggestions import the joiner by the request the swap matches", () => {
    const template = readFileSync(join(searchBar, "SuggestionTemplate.js"), "utf8");
    const imported = /from\s+"([^"]*concatDocumentPath[^"]*)"/.exec(template)?.[1];
    assert.ok(imported, "SuggestionTemplate.js no longer imports concatDocumentPath");
    assert.ok(JOINER_REQUEST.test(imported), `the request changed: ${imported}`);
    assert.ok(SEARCH_BAR_FOLDER.test(searchBar), `the folder moved: ${searchBar}`);
    assert.ok(isSearchBarJoiner(imported, searchBar));
    // ...and still put it into an HTML string, which is why it must escape.
    assert.match(template, /\$\{concatDocumentPath\(/);
  });

  test("the joiner exists and the replacement has its export", async () => {
    const original = await import(join(pluginDir, "dist/client/client/utils/concatDocumentPath.js"));
    const replacement = await import(ESCAPING_JOINER);
    assert.equal(typeof original.concatDocumentPath, "function");
    assert.equal(original.concatDocumentPath(["a", "b"]), replacement.concatDocumentPath(["a", "b"]));
    assert.equal(
      replacement.concatDocumentPath(["API", "Type Alias: Snapshot<S, E>", `<img src=x onerror="x()">`]),
      "API › Type Alias: Snapshot&lt;S, E&gt; › &lt;img src=x onerror=&quot;x()&quot;&gt;"
    );
  });

  test("the search page (React text) is left alone", () => {
    assert.equal(
      isSearchBarJoiner("../../utils/concatDocumentPath", join(pluginDir, "dist/client/client/theme/SearchPage")),
      false
    );
  });
});
