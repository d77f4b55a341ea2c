// Wrapped: a code block hydrates without Prism. The server renders it
// highlighted (./Rendered); the browser keeps that HTML and only adds the
// copy and word-wrap buttons (./Kept). Prism and the theme's block are loaded
// only to render a block anew: once the reader has moved to another page
// inside the site, no server HTML is left to keep.
//
// Not "once the page is live": parts of the landing page hydrate after that
// (src/theme/DocItem/Content), and their blocks still have HTML to keep.
// Long listings are highlighted only when they come near the screen
// (./OnDemand).
import type { ComponentProps, ReactNode } from "react";
import ExecutionEnvironment from "@docusaurus/ExecutionEnvironment";
import type CodeBlockType from "@theme/CodeBlock";
import { hasNavigated } from "../../client/code-on-navigation";
import Kept from "./Kept";
import OnDemand, { isLongListing } from "./OnDemand";
import { codeText } from "./Plain";
import Rendered from "./Rendered";

type Props = ComponentProps<typeof CodeBlockType>;

export default function CodeBlockWrapper(props: Props): ReactNode {
  if (isLongListing(codeText(props.children))) return <OnDemand {...props} />;
  return ExecutionEnvironment.canUseDOM && !hasNavigated() ? <Kept {...props} /> : <Rendered {...props} />;
}
