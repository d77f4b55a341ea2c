// Wrapped: marks the page live, `<html data-live>`, in the commit where the
// page knows it runs in the browser. Controls that render disabled on the
// server (the colour toggle, say) are enabled by that same commit, and this
// effect runs after theirs, so a press the start-up loader held
// (src/plugins/deferred-start) finds them ready when it is replayed.
import useIsBrowser from "@docusaurus/useIsBrowser";
import { type ReactNode, useEffect } from "react";
import { markLive } from "../../client/page-live";

export default function Root({ children }: { children: ReactNode }): ReactNode {
  const isBrowser = useIsBrowser();
  useEffect(() => {
    if (isBrowser) markLive(document);
  }, [isBrowser]);
  return children;
}
