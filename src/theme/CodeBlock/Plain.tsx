// A code block as plain text under its title: what a block rendered anew in
// the browser shows for the moment Prism takes to arrive, and what the
// server sends for a long listing (./OnDemand).
import { Children, isValidElement, type ComponentProps, type ReactNode } from "react";
import clsx from "clsx";
import type CodeBlockType from "@theme/CodeBlock";

type Props = ComponentProps<typeof CodeBlockType>;

/** The block's source as a string (MDX may hand it over in pieces). */
export function codeText(children: ReactNode): string {
  return Children.toArray(children)
    .filter((child) => !isValidElement(child))
    .join("");
}

export default function Plain(props: Props): ReactNode {
  return (
    <div className={clsx("theme-code-block", props.className)}>
      {props.title && <div className="act-code-block__title">{props.title}</div>}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a code block scrolls sideways, and a scrollable region must be reachable by keyboard (the theme's own block does the same). */}
      <pre className="prism-code" tabIndex={0}>
        <code>{codeText(props.children).replace(/\n$/, "")}</code>
      </pre>
    </div>
  );
}
