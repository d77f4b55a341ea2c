// Why: guide pages get a "Copy page as Markdown" button, for AI tools; API pages have no Markdown twin, so they get none.
import type { ReactNode } from "react";
import Content from "@theme-original/DocItem/Content";
import type ContentType from "@theme/DocItem/Content";
import type { WrapperProps } from "@docusaurus/types";
import { useActivePlugin, useDoc } from "@docusaurus/plugin-content-docs/client";
import CopyPageMarkdown from "@site/src/components/CopyPageMarkdown";

type Props = WrapperProps<typeof ContentType>;

export default function ContentWrapper(props: Props): ReactNode {
  const { metadata } = useDoc();
  // The API reference is the docs instance "api" (see the site config).
  const isApi = useActivePlugin()?.pluginId === "api";
  return (
    <>
      {!isApi && <CopyPageMarkdown permalink={metadata.permalink} />}
      <Content {...props} />
    </>
  );
}
