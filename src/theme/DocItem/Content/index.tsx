// Why: guide pages get a "Copy page as Markdown" button, for AI tools; API pages have no Markdown twin, so they get none. And the article hydrates after the rest of the page, in short slices: see below.
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
          of the page, at a low priority that yields to the browser every few
          milliseconds: the article (the page's largest part) then never
          blocks the main thread in one long task. A press inside it before
          then makes React hydrate it at once and replays the press. (Not a
          Suspense boundary: the server would move a large one to the end of
          the HTML, to be put back by a script.) */}
      <Activity mode="visible">
        <Content {...props} />
      </Activity>
    </>
  );
}
