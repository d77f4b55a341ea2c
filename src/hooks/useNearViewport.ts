/**
 * True once an element has come within `margin` of the viewport (and from
 * then on), so a part of a page can wait to run its code until the reader
 * gets near it. True at once where IntersectionObserver is missing.
 *
 * @example
 * const ref = useRef<HTMLElement>(null);
 * const near = useNearViewport(ref, "200px 0px");
 * return <section ref={ref}>{near ? <Heavy /> : <Placeholder />}</section>;
 */
import { useEffect, useState, type RefObject } from "react";

export function useNearViewport(ref: RefObject<HTMLElement | null>, margin: string): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    if (!("IntersectionObserver" in window)) return setNear(true);
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setNear(true);
      },
      { rootMargin: margin }
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, margin, near]);
  return near;
}
