// A code block rendered anew: the theme's block, highlighted by Prism. The
// server bundle renders it directly; the browser bundle holds only a
// dynamic import of it (the prism-with-code-blocks plugin defines the
// variable per bundle), so Prism is not in the code a page hydrates with,
// and shows the block as plain text for the moment Prism takes to arrive.
import React, { lazy, Suspense, type ComponentProps, type ReactNode } from "react";
import type CodeBlockType from "@theme/CodeBlock";
import Plain from "./Plain";

type Props = ComponentProps<typeof CodeBlockType>;

/** The element around every code block, on the server and in the browser. */
export const WRAPPER_CLASS = "act-code-block";

// The server renders synchronously, so it takes the module itself; the
// browser only holds the dynamic import. The condition is written out in
// full, twice: the bundler drops a branch (and what it requires) only when
// the condition in that very expression is a constant after the define; a
// variable holding it would keep the require, and Prism, in the browser.
const Highlighted: React.ComponentType<Props> =
  process.env.ACT_SERVER_BUNDLE === "true" ? require("./Highlighted").default : lazy(() => import("./Highlighted"));

export default function Rendered(props: Props): ReactNode {
  return (
    <div className={WRAPPER_CLASS}>
      {process.env.ACT_SERVER_BUNDLE === "true" ? (
        <Highlighted {...props} />
      ) : (
        <Suspense fallback={<Plain {...props} />}>
          <Highlighted {...props} />
        </Suspense>
      )}
    </div>
  );
}
