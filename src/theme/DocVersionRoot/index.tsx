// Wrapped: the docs version preference must survive a reload (local storage); the stock theme only writes it from a version dropdown this one-version site does not show, so visiting a doc records its version. It also puts back the API pages' part of the version object, which the browser bundle loads with the API pages only (src/plugins/api-apart).
import { useEffect, useMemo, type ReactNode } from "react";
import DocVersionRoot from "@theme-original/DocVersionRoot";
import type DocVersionRootType from "@theme/DocVersionRoot";
import type { WrapperProps } from "@docusaurus/types";
import { useLocation } from "@docusaurus/router";
import { useDocsPreferredVersion } from "@docusaurus/plugin-content-docs/client";
import { extrasOf } from "../../plugins/api-apart/extras";

type Props = WrapperProps<typeof DocVersionRootType>;

function RememberVersion({ pluginId, version }: { pluginId: string; version: string }): null {
  const { preferredVersion, savePreferredVersionName } = useDocsPreferredVersion(pluginId);
  useEffect(() => {
    if (preferredVersion?.name !== version) savePreferredVersionName(version);
  }, [preferredVersion, version, savePreferredVersionName]);
  return null;
}

export default function DocVersionRootWrapper(props: Props): ReactNode {
  // Read on every page change: the API pages' part, which holds these
  // extras, loads before the first API page renders.
  useLocation();
  const { pluginId, version: name } = props.version;
  const extras = extrasOf(pluginId, name);
  const version = useMemo(
    () =>
      extras
        ? {
            ...props.version,
            docsSidebars: { ...props.version.docsSidebars, ...extras.docsSidebars },
            docs: { ...props.version.docs, ...extras.docs },
          }
        : props.version,
    [props.version, extras]
  );
  return (
    <>
      <RememberVersion pluginId={pluginId} version={name} />
      <DocVersionRoot {...props} version={version as Props["version"]} />
    </>
  );
}
