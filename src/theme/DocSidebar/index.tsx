// Wrapped: the sidebar (the API one lists every page of the reference)
// hydrates after the rest of the page has committed, in a boundary of its own
// (a server-rendered Activity boundary; see src/theme/DocItem/Content, which
// also says when React hydrates such a boundary at once instead). A press on
// it before then makes React hydrate it at once and replays the press.
import { Activity, type ReactNode } from "react";
import DocSidebar from "@theme-original/DocSidebar";
import type DocSidebarType from "@theme/DocSidebar";
import type { WrapperProps } from "@docusaurus/types";

type Props = WrapperProps<typeof DocSidebarType>;

export default function DocSidebarWrapper(props: Props): ReactNode {
  return (
    <Activity mode="visible">
      <DocSidebar {...props} />
    </Activity>
  );
}
