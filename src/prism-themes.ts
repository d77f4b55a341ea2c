/**
 * Code colours for docusaurus.config.ts. Every token colour keeps WCAG AA
 * (4.5:1) on the code background AND on the highlighted-line background
 * (--docusaurus-highlighted-code-line-bg in src/css/custom.css), which
 * prism-react-renderer's stock themes do not (axe flagged vsLight's teal and
 * green, and oceanicNext's grey comments and blue numbers on highlighted lines).
 *
 * The theme handed to Docusaurus names CSS variables, not colours: a block
 * rendered on the server is then right in both colour modes, so switching
 * the mode never needs to render (and so highlight) a block again in the
 * browser. `codeColourCss` holds the values of those variables per mode;
 * src/plugins/prism-with-code-blocks puts them in every page's head.
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

type Style = { color?: string; fontStyle?: string; fontWeight?: string };
// Short names: every token of every server-rendered block names one.
const PROPERTIES = { color: "c", fontStyle: "s", fontWeight: "w" } as const;
const DEFAULTS: Required<Style> = { color: "inherit", fontStyle: "normal", fontWeight: "inherit" };

/** What a token of this one type looks like in `theme` (later rules win, as in prism-react-renderer). */
function styleOf(theme: PrismTheme, type: string): Style {
  const style: Style = {};
  for (const rule of theme.styles) if (rule.types.includes(type)) Object.assign(style, rule.style);
  return style;
}

const variable = (type: string, property: keyof Style) => `--tk-${type}-${PROPERTIES[property]}`;

/**
 * One theme for both modes whose values are CSS variables, and the values
 * of those variables in each mode. A property one mode sets for a type is
 * set in the other too (to the plain colour, or the normal style), so a
 * token of several types resolves the same way in both.
 */
export function cssVariableTheme(light: PrismTheme, dark: PrismTheme): { theme: PrismTheme; css: string } {
  const types = [...new Set([...light.styles, ...dark.styles].flatMap((rule) => rule.types))].sort();
  const values: Record<"light" | "dark", string[]> = { light: [], dark: [] };
  const styles: PrismTheme["styles"] = [];
  for (const type of types) {
    const own = { light: styleOf(light, type), dark: styleOf(dark, type) };
    const style: Record<string, string> = {};
    for (const property of Object.keys(PROPERTIES) as (keyof Style)[]) {
      if (own.light[property] === undefined && own.dark[property] === undefined) continue;
      style[property] = `var(${variable(type, property)})`;
      for (const mode of ["light", "dark"] as const) {
        const plain = property === "color" ? (mode === "light" ? light : dark).plain.color : undefined;
        values[mode].push(`${variable(type, property)}:${own[mode][property] ?? plain ?? DEFAULTS[property]}`);
      }
    }
    if (Object.keys(style).length) styles.push({ types: [type], style });
  }
  const theme: PrismTheme = {
    plain: { color: "var(--tk-plain-c)", backgroundColor: "var(--tk-plain-bg)" },
    styles,
  };
  values.light.push(`--tk-plain-c:${light.plain.color}`, `--tk-plain-bg:${light.plain.backgroundColor}`);
  values.dark.push(`--tk-plain-c:${dark.plain.color}`, `--tk-plain-bg:${dark.plain.backgroundColor}`);
  const css = `:root{${values.light.join(";")}}[data-theme="dark"]{${values.dark.join(";")}}`;
  return { theme, css };
}

const codeColours = cssVariableTheme(lightCodeTheme, darkCodeTheme);
/** The theme Docusaurus renders code blocks with, in both modes. */
export const codeTheme: PrismTheme = codeColours.theme;
/** The values of its variables: light on :root, dark under [data-theme="dark"]. */
export const codeColourCss: string = codeColours.css;
