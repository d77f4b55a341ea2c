// Why: guide pages get a "Copy page as Markdown" button, for AI tools (API pages have no Markdown twin, so they get none), and every page that declares its stability (front matter `stability`; on API pages from the symbol's TSDoc tag) shows it as a badge.
import type { ReactNode } from "react";
import Content from "@theme-original/DocItem/Content";
import type ContentType from "@theme/DocItem/Content";
import type { WrapperProps } from "@docusaurus/types";
import { useActivePlugin, useDoc } from "@docusaurus/plugin-content-docs/client";
import CopyPageMarkdown from "@site/src/components/CopyPageMarkdown";
import StabilityBadge, { stabilityOf } from "@site/src/components/StabilityBadge";

type Props = WrapperProps<typeof ContentType>;

export default function ContentWrapper(props: Props): ReactNode {
  const { metadata, frontMatter } = useDoc();
  // The API reference is the docs instance "api" (see the site config).
  const isApi = useActivePlugin()?.pluginId === "api";
  const stability = stabilityOf((frontMatter as { stability?: unknown }).stability, metadata.source);
  return (
    <>
      {!isApi && <CopyPageMarkdown permalink={metadata.permalink} />}
      {stability && <StabilityBadge stability={stability} />}
      <Content {...props} />
    </>
  );
}
