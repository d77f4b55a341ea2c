// Wrapped: a code block hydrates without Prism. The server renders it
// highlighted (./Rendered); the browser keeps that HTML and only adds the
// copy and word-wrap buttons (./Kept). Prism and the theme's block are loaded
// only to render a block anew: after a client-side navigation.
import { useState, type ComponentProps, type ReactNode } from "react";
import ExecutionEnvironment from "@docusaurus/ExecutionEnvironment";
import type CodeBlockType from "@theme/CodeBlock";
import Kept from "./Kept";
import Rendered from "./Rendered";

type Props = ComponentProps<typeof CodeBlockType>;

export default function CodeBlockWrapper(props: Props): ReactNode {
  // Only a page being hydrated has server HTML to keep; after a client-side
  // navigation (the page is live already) the block is rendered anew.
  const [hydrating] = useState(
    () => ExecutionEnvironment.canUseDOM && !document.documentElement.hasAttribute("data-live")
  );
  return hydrating ? <Kept {...props} /> : <Rendered {...props} />;
}
