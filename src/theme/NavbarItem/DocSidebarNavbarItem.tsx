// A navbar link to a docs sidebar's first page, marked active while the page
// read is in that sidebar. Swizzled (ejected) because the API reference's
// docs instance publishes no page list (src/plugins/docs-without-page-list):
// a page of its version that the list lacks is in the sidebar the version
// names (`omittedSidebar`), which the theme's own item cannot know.
import { useActiveDocContext, useLayoutDocsSidebar } from "@docusaurus/plugin-content-docs/client";
import DefaultNavbarItem from "@theme/NavbarItem/DefaultNavbarItem";
import type { Props } from "@theme/NavbarItem/DocSidebarNavbarItem";
import type { ReactNode } from "react";

export default function DocSidebarNavbarItem({ sidebarId, label, docsPluginId, ...props }: Props): ReactNode {
  const { activeDoc, activeVersion } = useActiveDocContext(docsPluginId);
  const { link } = useLayoutDocsSidebar(sidebarId, docsPluginId);
  if (!link) throw new Error(`DocSidebarNavbarItem: the sidebar "${sidebarId}" has no page to link to.`);
  const pageSidebar = activeDoc
    ? activeDoc.sidebar
    : (activeVersion as { omittedSidebar?: string } | undefined)?.omittedSidebar;
  return (
    <DefaultNavbarItem
      exact
      {...props}
      isActive={() => pageSidebar === sidebarId}
      label={label ?? link.label}
      to={link.path}
    />
  );
}
