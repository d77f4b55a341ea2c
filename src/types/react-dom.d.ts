// The one react-dom export the site's code uses (src/theme/CodeBlock/Kept.tsx);
// declared here rather than adding @types/react-dom for a single function.
declare module "react-dom" {
  import type { ReactNode, ReactPortal } from "react";
  export function createPortal(
    children: ReactNode,
    container: Element | DocumentFragment,
    key?: string | null
  ): ReactPortal;
}
