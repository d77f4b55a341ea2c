/**
 * Event handlers that call `start` when the reader begins to use an element:
 * a pointer or a finger goes down on it, focus moves into it, a key is
 * pressed in it, or a mouse rests on it for `hoverDelay` ms (the hover
 * buys a head start on desktop; a pointer merely passing over it while the
 * page scrolls does not count). So a part of a page can load its code when
 * the reader reaches for it rather than when the page loads. `start` may be
 * called more than once.
 *
 * @example
 * const handlers = useFirstUse(load);
 * return <section {...handlers}>…</section>;
 */
import { type PointerEvent, useEffect, useRef } from "react";

export function useFirstUse(start: () => void, hoverDelay = 150) {
  const hover = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(hover.current), []);
  return {
    onPointerDown: start,
    onFocus: start,
    onKeyDown: start,
    onPointerEnter: (event: PointerEvent) => {
      if (event.pointerType === "mouse") hover.current = setTimeout(start, hoverDelay);
    },
    onPointerLeave: () => clearTimeout(hover.current),
  };
}
