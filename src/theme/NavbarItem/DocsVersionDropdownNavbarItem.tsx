// Wrapped: one version dropdown for both docs instances — on an API page it lists the API reference's versions (and switches to the same symbol in another release), elsewhere the guides'.
import type { ReactNode } from "react";
import DocsVersionDropdownNavbarItem from "@theme-original/NavbarItem/DocsVersionDropdownNavbarItem";
import type DocsVersionDropdownNavbarItemType from "@theme/NavbarItem/DocsVersionDropdownNavbarItem";
import type { WrapperProps } from "@docusaurus/types";
import { useActivePlugin } from "@docusaurus/plugin-content-docs/client";

type Props = WrapperProps<typeof DocsVersionDropdownNavbarItemType>;

export default function DocsVersionDropdownNavbarItemWrapper(props: Props): ReactNode {
  const activePluginId = useActivePlugin()?.pluginId;
  return <DocsVersionDropdownNavbarItem {...props} docsPluginId={props.docsPluginId ?? activePluginId} />;
}
