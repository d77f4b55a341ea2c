/**
 * Code themes for docusaurus.config.ts. Every token colour keeps WCAG AA
 * (4.5:1) on the code background AND on the highlighted-line background
 * (--docusaurus-highlighted-code-line-bg in src/css/custom.css), which
 * prism-react-renderer's stock themes do not (axe flagged vsLight's teal and
 * green, and oceanicNext's grey comments and blue numbers on highlighted lines).
 */
import { themes, type PrismTheme } from "prism-react-renderer";

/** Light: on #f6f7f9 (code) and #ebe9fb (highlighted line), all ≥ 5.3:1. */
export const lightCodeTheme: PrismTheme = {
  plain: { color: "#24292f", backgroundColor: "#f6f7f9" },
  styles: [
    { types: ["comment", "prolog", "doctype", "cdata", "shebang"], style: { color: "#57606a", fontStyle: "italic" } },
    { types: ["keyword", "atrule", "important"], style: { color: "#a0111f" } },
    { types: ["string", "char", "attr-value", "regex", "template-string"], style: { color: "#0a3069" } },
    { types: ["number", "boolean", "constant", "symbol", "property", "attr-name"], style: { color: "#0550ae" } },
    { types: ["function", "function-name", "method"], style: { color: "#6639ba" } },
    {
      types: ["class-name", "builtin", "maybe-class-name", "namespace", "variable", "parameter"],
      style: { color: "#953800" },
    },
    { types: ["tag", "selector", "inserted"], style: { color: "#116329" } },
    { types: ["deleted"], style: { color: "#82071e" } },
    { types: ["punctuation", "operator", "entity", "url"], style: { color: "#24292f" } },
    { types: ["bold"], style: { fontWeight: "bold" } },
    { types: ["italic"], style: { fontStyle: "italic" } },
  ],
};

/** Dark: oceanicNext, with comments and numbers lifted for #343945 lines. */
export const darkCodeTheme: PrismTheme = {
  ...themes.oceanicNext,
  styles: themes.oceanicNext.styles.map((rule) => {
    if (rule.types.includes("comment")) return { ...rule, style: { ...rule.style, color: "#aab1bd" } };
    if (rule.types.includes("number")) return { ...rule, style: { ...rule.style, color: "#79b0dc" } };
    if (rule.types.includes("namespace")) return { ...rule, style: { opacity: 1 } };
    return rule;
  }),
};
