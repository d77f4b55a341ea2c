// The Markdown twins copy no file from outside the repository.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll as after, describe, test } from "vitest";
import { mdxToMarkdown, resolveInsideRoot } from "./index";

describe("Markdown twins: imports stay inside the repository", () => {
  const sandbox = realpathSync(mkdtempSync(join(tmpdir(), "twins-")));
  const repo = join(sandbox, "repo");
  mkdirSync(join(repo, "packages/app/src"), { recursive: true });
  writeFileSync(join(repo, "packages/app/src/main.ts"), "export const inside = 1;\n");
  writeFileSync(join(sandbox, "secret.txt"), "outside the repository\n");
  symlinkSync(join(sandbox, "secret.txt"), join(repo, "packages/app/src/link.ts"));
  after(() => rmSync(sandbox, { recursive: true, force: true }));

  const page = (path: string) =>
    `import Code from '!!raw-loader!@site/${path}';\nimport CodeBlock from '@theme/CodeBlock';\n\n# Page\n\n<CodeBlock language="ts">\n{Code}\n</CodeBlock>\n`;
  const twin = (path: string) =>
    mdxToMarkdown(page(path), { title: "Page", description: "" }, repo, "https://example.org/base");

  test("a file of the repository is inlined", () => {
    assert.match(twin("packages/app/src/main.ts"), /export const inside = 1;/);
    assert.equal(resolveInsideRoot(repo, "packages/app/src/main.ts"), join(repo, "packages/app/src/main.ts"));
  });

  test("`..` out of the repository is refused, and nothing of the file is written", () => {
    assert.throws(() => twin("../secret.txt"), /outside the repository/);
    assert.throws(() => twin("packages/../../secret.txt"), /outside the repository/);
  });

  test("the machine's files are refused (the path of the original report)", () => {
    assert.throws(() => twin("../../etc/hostname"), /outside the repository/);
    assert.throws(() => resolveInsideRoot(repo, "/etc/hostname"), /outside the repository/);
  });

  test("a symbolic link that leads out of the repository is refused", () => {
    assert.throws(() => twin("packages/app/src/link.ts"), /outside the repository/);
  });

  test("a name that only starts with dots stays inside", () => {
    writeFileSync(join(repo, "..notes.md"), "dots\n");
    assert.equal(resolveInsideRoot(repo, "..notes.md"), join(repo, "..notes.md"));
  });
});

describe("Markdown twins: MDX syntax a reader of plain Markdown does not need", () => {
  test("a heading's explicit id is left out, the heading kept", () => {
    const twin = mdxToMarkdown(
      "# Page\n\n## The stores \\{#the-two-stores\\}\n\nText.\n",
      { title: "Page", description: "" },
      "/",
      "https://example.org"
    );
    assert.match(twin, /^## The stores$/m);
    assert.doesNotMatch(twin, /the-two-stores/);
  });
});
