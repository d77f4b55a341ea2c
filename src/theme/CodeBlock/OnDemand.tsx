/**
 * A long listing, highlighted when it comes near the screen.
 *
 * Highlighted, every token of a listing is an element with its colour, and
 * every line a few more: the example pages' full source files would be most
 * of their HTML (the calculator page weighed 450 KB for four files). The
 * server sends a long listing as plain text under its title (./Plain), a
 * few bytes a line. Once the reader has scrolled, pointed or typed, and the
 * listing is within a screen of the viewport, the browser loads Prism and
 * renders the theme's block, highlighted, with its line numbers and
 * buttons. Not on load: Prism and the highlighting of a long file would
 * hold the main thread while the page starts.
 */
import { type ComponentProps, type ComponentType, type ReactNode, useEffect, useRef, useState } from "react";
import type CodeBlockType from "@theme/CodeBlock";
import Plain from "./Plain";
import { WRAPPER_CLASS } from "./Rendered";

type Props = ComponentProps<typeof CodeBlockType>;

/** Listings longer than this many lines are highlighted on demand. */
export const LONG_LISTING_LINES = 40;

/** What counts as the reader starting to read: highlighting waits for one of these. */
const READING = ["scroll", "wheel", "pointerdown", "touchstart", "keydown"] as const;

/** Whether `code` is a long listing. */
export function isLongListing(code: string): boolean {
  return code.replace(/\n$/, "").split("\n").length > LONG_LISTING_LINES;
}

export default function OnDemand(props: Props): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const [Highlighted, setHighlighted] = useState<ComponentType<Props> | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    let cancelled = false;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        // Swapped in once loaded (not a lazy component): the plain text
        // stays until the highlighted block can replace it in one render.
        void import("./Highlighted").then((module) => {
          if (!cancelled) setHighlighted(() => module.default);
        });
      },
      { rootMargin: "100% 0px" }
    );
    const start = () => {
      for (const type of READING) window.removeEventListener(type, start);
      if (!cancelled) observer.observe(element);
    };
    for (const type of READING) window.addEventListener(type, start, { passive: true });
    return () => {
      cancelled = true;
      for (const type of READING) window.removeEventListener(type, start);
      observer.disconnect();
    };
  }, []);
  return (
    <div ref={ref} className={WRAPPER_CLASS} data-highlight={Highlighted ? "done" : "on-demand"}>
      {Highlighted ? <Highlighted {...props} /> : <Plain {...props} />}
    </div>
  );
}
