import assert from "node:assert/strict";
import { describe, test } from "vitest";
import { addReleaseSection, NO_STEPS, NOTHING_YET } from "./release-notes.mjs";

const page = (unreleased, older = "") =>
  `---\ntitle: Release notes\n---\n\n# Release notes\n\nIntro.\n\n## Unreleased\n\n${unreleased}\n${older}`;

describe("release notes: cutting a release moves Unreleased under its version", () => {
  test("the notes go under the version and its date; a new, empty Unreleased opens above", () => {
    const older = "\n## 0.1.0 \\{#v0-1-0\\}\n\nReleased 2026-01-01.\n\nOld notes.\n";
    const cut = addReleaseSection(page("- `a` is `b` now.", older), "0.2.0", "2026-11-29");
    assert.equal(
      cut,
      page(NOTHING_YET, `\n## 0.2.0 \\{#v0-2-0\\}\n\nReleased 2026-11-29.\n\n- \`a\` is \`b\` now.\n${older}`)
    );
  });

  test("a release with nothing noted says no step is needed", () => {
    const cut = addReleaseSection(page(NOTHING_YET), "0.1.1", "2026-11-29");
    assert.match(cut, new RegExp(`## 0\\.1\\.1 \\\\\\{#v0-1-1\\\\\\}\\n\\nReleased 2026-11-29\\.\\n\\n${NO_STEPS}`));
  });

  test("a page without its Unreleased heading, or with two, is refused", () => {
    assert.throws(
      () => addReleaseSection("# Release notes\n", "0.1.0", "2026-11-29"),
      /exactly one "## Unreleased" heading.*found 0/
    );
    assert.throws(() => addReleaseSection(page("a\n\n## Unreleased\n"), "0.1.0", "2026-11-29"), /found 2/);
  });

  test("a version that already has its section is refused", () => {
    assert.throws(
      () => addReleaseSection(page("x", "\n## 0.1.0\n"), "0.1.0", "2026-11-29"),
      /already has a section for 0\.1\.0/
    );
  });
});
