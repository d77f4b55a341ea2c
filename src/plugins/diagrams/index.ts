/**
 * Remark plugin: every ```mermaid block becomes an inline SVG figure at build
 * time, in both colour modes, so readers get the diagram with the HTML and
 * no page loads Mermaid.
 *
 * Each block must name its diagram for screen readers with Mermaid's own
 * `accTitle:` and `accDescr:` lines; they become the SVG's <title> and
 * <desc>, and the build fails with the file name when one is missing. The
 * light and the dark SVG sit side by side and src/css/custom.css shows the
 * one that matches `data-theme` (the hidden one is `display: none`, so it is
 * neither seen nor read out). Text stays SVG or HTML text: selectable and
 * searchable.
 */
import { createHash } from "node:crypto";
import { renderMermaid, type Theme } from "./render";
import { scopeIds } from "./scope-ids";

type Node = { type: string; lang?: string | null; value?: string; children?: Node[]; [key: string]: unknown };
type File = { path?: string; history?: string[] };

/** The CSS class of a diagram figure and of each colour mode's copy in it. */
export const DIAGRAM_CLASS = "act-diagram";

/** Throws unless `source` declares an accessible title and description. */
export function checkAccessible(source: string, where: string): void {
  const missing = ["accTitle", "accDescr"].filter((key) => !new RegExp(`^\\s*${key}\\s*[:{]`, "m").test(source));
  if (missing.length)
    throw new Error(
      `${where}: a Mermaid diagram needs ${missing.join(" and ")} (its title and description for screen readers), e.g.\n` +
        `  accTitle: One action, from request to state\n  accDescr: The app validates the payload, loads the state, …`
    );
}

/** A JSX attribute whose value is the expression `{ __html: html }`. */
const innerHtml = (html: string) => ({
  type: "mdxJsxAttribute",
  name: "dangerouslySetInnerHTML",
  value: {
    type: "mdxJsxAttributeValueExpression",
    value: `{__html: ${JSON.stringify(html)}}`,
    data: {
      estree: {
        type: "Program",
        sourceType: "module",
        comments: [],
        body: [
          {
            type: "ExpressionStatement",
            expression: {
              type: "ObjectExpression",
              properties: [
                {
                  type: "Property",
                  kind: "init",
                  method: false,
                  shorthand: false,
                  computed: false,
                  key: { type: "Identifier", name: "__html" },
                  value: { type: "Literal", value: html, raw: JSON.stringify(html) },
                },
              ],
            },
          },
        ],
      },
    },
  },
});

const element = (name: string, className: string, attributes: unknown[], children: Node[] = []): Node => ({
  type: "mdxJsxFlowElement",
  name,
  attributes: [{ type: "mdxJsxAttribute", name: "className", value: className }, ...attributes],
  children,
});

/** Renders one diagram source to the figure that replaces its code block. */
export async function diagramFigure(source: string, where: string): Promise<Node> {
  checkAccessible(source, where);
  const hash = createHash("sha256").update(source).digest("hex").slice(0, 10);
  const copies = await Promise.all(
    (["light", "dark"] as Theme[]).map(async (theme) => {
      const id = `diagram-${hash}-${theme}`;
      const svg = scopeIds(await renderMermaid(id, source, theme), id);
      return element("div", `${DIAGRAM_CLASS}__${theme}`, [innerHtml(svg)]);
    })
  );
  return element("figure", DIAGRAM_CLASS, [], copies);
}

function collect(node: Node, found: { parent: Node; index: number }[]) {
  node.children?.forEach((child, index) => {
    if (child.type === "code" && child.lang === "mermaid") found.push({ parent: node, index });
    else collect(child, found);
  });
}

export default function remarkDiagrams() {
  return async (tree: Node, file: File) => {
    const found: { parent: Node; index: number }[] = [];
    collect(tree, found);
    const where = file.path ?? file.history?.[0] ?? "a Markdown file";
    await Promise.all(
      found.map(async ({ parent, index }) => {
        parent.children![index] = await diagramFigure(parent.children![index]!.value ?? "", where);
      })
    );
  };
}
