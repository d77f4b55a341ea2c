// Why: guide pages get a "Copy page as Markdown" button, for AI tools; API pages have no Markdown twin, so they get none. And the article hydrates after the rest of the page: see below.
import { Activity, type ReactNode } from "react";
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
      {/* React hydrates a server-rendered Activity boundary after the rest
          of the page has committed, so the article (the page's largest part)
          is not in the same commit as the frame around it. It is not always
          hydrated in short slices: a context that changes above the boundary
          before it has hydrated (Docusaurus' providers update a few right
          after hydration) makes React hydrate it at that update's priority,
          in one blocking render. Without the boundary, measured on these
          pages, the whole page commits in one task of about the same size,
          so it stays. A press inside it before it has hydrated makes React
          hydrate it at once and replays the press. (Not a Suspense boundary:
          the server would move a large one to the end of the HTML, to be put
          back by a script.) */}
      <Activity mode="visible">
        <Content {...props} />
      </Activity>
    </>
  );
}
