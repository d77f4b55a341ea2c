// Wrapped: the docs version preference must survive a reload (local storage); the stock theme only writes it when a reader picks a version in the navbar's menu (none while Next is the only version), so visiting a doc records its version.
import { useEffect, type ReactNode } from "react";
import DocVersionRoot from "@theme-original/DocVersionRoot";
import type DocVersionRootType from "@theme/DocVersionRoot";
import type { WrapperProps } from "@docusaurus/types";
import { useDocsPreferredVersion } from "@docusaurus/plugin-content-docs/client";

type Props = WrapperProps<typeof DocVersionRootType>;

function RememberVersion({ pluginId, version }: { pluginId: string; version: string }): null {
  const { preferredVersion, savePreferredVersionName } = useDocsPreferredVersion(pluginId);
  useEffect(() => {
    if (preferredVersion?.name !== version) savePreferredVersionName(version);
  }, [preferredVersion, version, savePreferredVersionName]);
  return null;
}

export default function DocVersionRootWrapper(props: Props): ReactNode {
  const { pluginId, version: name } = props.version;
  return (
    <>
      <RememberVersion pluginId={pluginId} version={name} />
      <DocVersionRoot {...props} />
    </>
  );
}
