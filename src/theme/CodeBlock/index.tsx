// Wrapped: a code block hydrates without Prism. The server renders it
// highlighted (./Rendered); the browser keeps that HTML and only adds the
// copy and word-wrap buttons (./Kept). Prism and the theme's block are loaded
// only to render a block anew, when there is no server HTML to keep (after a
// client-side navigation): Kept finds its element empty and hands over.
//
// Whether an element is being hydrated is not known while rendering (parts
// of a page hydrate after it is live, see src/theme/DocItem/Content), so
// every block in the browser starts as Kept and looks at its element.
import type { ComponentProps, ReactNode } from "react";
import ExecutionEnvironment from "@docusaurus/ExecutionEnvironment";
import type CodeBlockType from "@theme/CodeBlock";
import Kept from "./Kept";
import Rendered from "./Rendered";

type Props = ComponentProps<typeof CodeBlockType>;

export default function CodeBlockWrapper(props: Props): ReactNode {
  return ExecutionEnvironment.canUseDOM ? <Kept {...props} /> : <Rendered {...props} />;
}
