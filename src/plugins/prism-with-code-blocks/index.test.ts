// The classic theme's Prism client module, and the parts of its code block
// that src/theme/CodeBlock relies on, are still where the swap expects them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "vitest";
import { cssVariableTheme, darkCodeTheme, lightCodeTheme } from "../../prism-themes";
import { EMPTY_MODULE, PRISM_CLIENT_MODULE } from "./index";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const require = createRequire(import.meta.url);

describe("prism-with-code-blocks: the classic theme's Prism client module is where the swap expects it", () => {
  test("the theme lists the module among its client modules, at a path the swap matches", async () => {
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const { default: themeClassic } = await import(join(themeDir, "lib/index.js"));
    const theme = themeClassic(
      {
        siteDir: root,
        siteConfig: { themeConfig: { prism: {} } },
        i18n: { currentLocale: "en", localeConfigs: { en: { direction: "ltr" } } },
      },
      { customCss: [] }
    );
    // Docusaurus resolves a plugin's relative client modules against its folder.
    const modules = (theme.getClientModules() as string[]).map((path) =>
      path.startsWith(".") ? join(themeDir, "lib", path) : path
    );
    const prism = modules.filter((path: string) => PRISM_CLIENT_MODULE.test(path));
    assert.equal(prism.length, 1, `no client module matches: ${modules.join(", ")}`);
    assert.match(readFileSync(require.resolve(prism[0]), "utf8"), /prismIncludeLanguages\(Prism\)/);
  });

  test("the stand-in registers nothing", () => {
    assert.doesNotMatch(readFileSync(EMPTY_MODULE, "utf8"), /import\s|require\(/);
  });
  // src/theme/CodeBlock/Kept.tsx keeps the server's HTML of a block and
  // renders the theme's buttons where the theme puts them, with the context
  // the theme gives them. These are the theme's parts it relies on.
  test("the theme's block puts its buttons after the <pre>, inside the <pre>'s parent", () => {
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const layout = readFileSync(join(themeDir, "lib/theme/CodeBlock/Layout/index.js"), "utf8");
    assert.match(layout, /<div className=\{styles\.codeBlockContent\}>\s*<Content \/>\s*<Buttons \/>\s*<\/div>/);
    const content = readFileSync(join(themeDir, "lib/theme/CodeBlock/Content/index.js"), "utf8");
    assert.match(content, /<Pre\s+ref=\{wordWrap\.codeBlockRef\}/, "the word-wrap state works on the <pre>");
    const buttons = readFileSync(join(themeDir, "lib/theme/CodeBlock/Buttons/index.js"), "utf8");
    assert.doesNotMatch(buttons, /prism/i, "the buttons need no Prism");
  });

  test("theme-common still exports what the kept block uses, and the copy button copies the metadata's code", () => {
    // Read, not imported: the theme's modules hold JSX.
    const common = join(dirname(require.resolve("@docusaurus/theme-common/internal")), "..");
    const internal = readFileSync(join(common, "lib/internal.js"), "utf8");
    for (const name of ["createCodeBlockMetadata", "CodeBlockContextProvider", "useCodeWordWrap"])
      assert.match(internal, new RegExp(`\\b${name}\\b`), name);
    const utils = readFileSync(join(common, "lib/utils/codeBlockUtils.js"), "utf8");
    assert.match(utils, /export function createCodeBlockMetadata\(params\)/);
    const themeDir = dirname(require.resolve("@docusaurus/theme-classic/package.json"));
    const string = readFileSync(join(themeDir, "lib/theme/CodeBlock/Content/String.js"), "utf8");
    for (const field of [
      "code: props.children",
      "className: props.className",
      "metastring: props.metastring",
      "magicComments: prism.magicComments",
      "defaultLanguage: prism.defaultLanguage",
      "language: props.language",
      "title: props.title",
      "showLineNumbers: props.showLineNumbers",
    ])
      assert.ok(string.includes(field), `the theme builds the metadata from ${field}, as Kept.tsx does`);
    const copy = readFileSync(join(themeDir, "lib/theme/CodeBlock/Buttons/CopyButton/index.js"), "utf8");
    assert.match(copy, /metadata: \{code\}/);
  });

  test("the code colours: one theme of CSS variables, each variable set in both modes", () => {
    const { theme, css } = cssVariableTheme(lightCodeTheme, darkCodeTheme);
    const [light, dark] = [
      /^:root\{([^}]*)\}/.exec(css)?.[1] ?? "",
      /\[data-theme="dark"\]\{([^}]*)\}/.exec(css)?.[1] ?? "",
    ];
    const names = (block: string) =>
      block
        .split(";")
        .map((d) => d.split(":")[0])
        .sort();
    assert.deepEqual(names(light), names(dark));
    for (const rule of theme.styles)
      for (const value of Object.values(rule.style)) assert.match(String(value), /^var\(--tk-[\w-]+\)$/);
    assert.match(light, /--tk-keyword-c:#a0111f/);
    assert.match(dark, /--tk-comment-c:#aab1bd/);
  });
});
