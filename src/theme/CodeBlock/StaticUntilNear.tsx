/**
 * Keeps the server-rendered HTML of its children as it is while the page
 * hydrates, and renders them for real once the reader comes within 300 px of
 * them, points at them or moves focus into them. (After a client-side
 * navigation there is no server HTML to keep: they render at once.)
 *
 * A long code block (a whole source file) is hundreds of highlighted lines:
 * hydrating it means tokenizing the file again in the browser, work the
 * first screen of a phone does not need. Until then the block is the
 * server's HTML — readable, selectable, its text searchable — without its
 * copy and wrap buttons working. React leaves an element whose content is
 * `dangerouslySetInnerHTML` untouched when it hydrates, which is what keeps
 * that HTML; `data-static` marks it (src/css/custom.css keeps the colours
 * the server rendered until then).
 */
import { useRef, useState, type ReactNode } from "react";
import ExecutionEnvironment from "@docusaurus/ExecutionEnvironment";
import { useNearViewport } from "../../hooks/useNearViewport";

export default function StaticUntilNear({ children }: { children: ReactNode }): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const near = useNearViewport(ref, "300px 0px");
  const [touched, setTouched] = useState(false);
  // Only a page being hydrated has server HTML to keep; after a client-side
  // navigation (the page is live already) the block renders at once.
  const [hydrating] = useState(
    () => ExecutionEnvironment.canUseDOM && !document.documentElement.hasAttribute("data-live")
  );
  if (!ExecutionEnvironment.canUseDOM) return <div data-static="">{children}</div>;
  if (hydrating && !near && !touched) {
    // The same element as on the server, whose HTML the browser keeps.
    const wake = () => setTouched(true);
    return (
      // biome-ignore lint/a11y/noStaticElementInteractions: these handlers only wake the block up; its copy and wrap buttons stay the controls.
      <div
        key="static"
        ref={ref}
        data-static=""
        onPointerEnter={wake}
        onFocus={wake}
        onTouchStart={wake}
        // biome-ignore lint/security/noDangerouslySetInnerHtml: an empty string, so React keeps the HTML the server rendered instead of rendering the block again.
        dangerouslySetInnerHTML={{ __html: "" }}
        suppressHydrationWarning
      />
    );
  }
  // A new element (another key): React replaces the static one in one commit.
  return <div key="live">{children}</div>;
}
