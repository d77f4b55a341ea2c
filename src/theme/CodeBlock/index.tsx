// The theme's CodeBlock, with Prism's extra languages registered first (they
// used to be registered by a client module on every page; see
// src/plugins/prism-with-code-blocks), and long blocks hydrated only when
// the reader gets near them (./StaticUntilNear).
import "./prism-languages";
import type { ComponentProps, ReactNode } from "react";
import CodeBlock from "@theme-original/CodeBlock";
import StaticUntilNear from "./StaticUntilNear";

/** Blocks longer than this many lines wait for the reader (a whole file, say). */
export const LONG_BLOCK_LINES = 30;

export default function CodeBlockWrapper(props: ComponentProps<typeof CodeBlock>): ReactNode {
  const lines = typeof props.children === "string" ? props.children.split("\n").length : 0;
  const block = <CodeBlock {...props} />;
  return lines > LONG_BLOCK_LINES ? <StaticUntilNear>{block}</StaticUntilNear> : block;
}
