/**
 * Route prefetching waits until the page is idle.
 *
 * Docusaurus prefetches the code of every internal link as soon as the link
 * scrolls into view: on a docs page that is dozens of links at once, each
 * matched against the whole route table, all while the page is still
 * hydrating. This client module queues those prefetches and runs them in
 * the browser's idle periods, a few per period, so they never compete with
 * the first render. Preloading on hover or focus (the reader is about to
 * click) stays immediate, and Docusaurus' own rules still apply: nothing is
 * prefetched on 2g or data-saver connections.
 */
import { prefetchMore } from "./route-prefetchers";

type Docusaurus = { prefetch(path: string): unknown; preload(path: string): unknown };
type Deadline = { timeRemaining(): number };

/**
 * Wraps `docusaurus` so prefetches are queued and run by `idle`; `more`
 * runs after each prefetch Docusaurus makes (it returns false when it makes
 * none: a slow connection, or a path already fetched).
 */
export function idlePrefetching(
  docusaurus: Docusaurus,
  idle: (run: (deadline: Deadline) => void) => void,
  more: (path: string) => void = () => {}
): Docusaurus {
  const prefetch = (path: string) => {
    if (docusaurus.prefetch(path) !== false) more(path);
  };
  const queue: string[] = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled || !queue.length) return;
    scheduled = true;
    idle((deadline) => {
      scheduled = false;
      // At least one per period, then as many as fit.
      do prefetch(queue.shift()!);
      while (queue.length && deadline.timeRemaining() > 5);
      schedule();
    });
  };
  return Object.freeze({
    ...docusaurus,
    prefetch(path: string) {
      queue.push(path);
      schedule();
      return true;
    },
  });
}

const whenIdle = (run: (deadline: Deadline) => void) => {
  if ("requestIdleCallback" in window) window.requestIdleCallback(run, { timeout: 5000 });
  else setTimeout(() => run({ timeRemaining: () => 10 }), 300);
};

// (A plain check rather than ExecutionEnvironment, so the tests can import
// idlePrefetching under Node.)
if (typeof window !== "undefined") {
  // Docusaurus mounts its API on window.docusaurus right after the client
  // modules run; catch that assignment and mount the wrapped one instead.
  let mounted: Docusaurus | undefined;
  Object.defineProperty(window, "docusaurus", {
    configurable: true,
    get: () => mounted,
    set(value: Docusaurus) {
      mounted = idlePrefetching(value, whenIdle, prefetchMore);
    },
  });
}
