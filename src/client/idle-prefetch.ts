/**
 * Route prefetching waits until the page is idle, stays within a byte
 * budget, and stays off on slow or metered connections.
 *
 * Docusaurus prefetches the code of every internal link as soon as the link
 * scrolls into view: on a docs page that is dozens of links at once, all
 * while the page is still hydrating, and on the intro about 1 MB once the
 * page goes idle. This client module queues those prefetches and runs them
 * one at a time in the browser's idle periods, so they never compete with
 * the first render; it stops once the next one could take the page past
 * PREFETCH_BUDGET bytes, and prefetches nothing when the reader asked to
 * save data or the connection is 3g or slower. Preloading on hover or focus
 * (the reader is about to click) stays immediate and unlimited.
 */

type Docusaurus = { prefetch(path: string): unknown; preload(path: string): unknown };
type Deadline = { timeRemaining(): number };
/** What the Network Information API says of the connection (when the browser has it). */
export type Connection = { saveData?: boolean; effectiveType?: string } | undefined;

/** At most this many bytes are prefetched per page. */
export const PREFETCH_BUDGET = 300 * 1024;

/**
 * The room kept free for the next route: at least what the costliest route
 * of this site takes to prefetch (its content plus the doc page components:
 * 201 KB for the event-sourcing guide in November 2026, whose three diagrams
 * are inline SVG in both colour modes, and 210.4 KB once it gained its
 * Limitations section; 227.1 KB for the `Act` class page once the app
 * gained its data-lifecycle methods, and 233.9 KB once its methods were
 * written in two classes — the page named each inherited method's origin;
 * 229.4 KB once it read as one class again, the origins gone; 233.1 KB
 * with `queryArchive` and the tenant scoping of the same week). A
 * route's size is known only once it has loaded, so the budget holds only if
 * no route costs more than this; the browser tests prefetch every page of
 * the sitemap alone and fail, naming the page, when one does.
 */
export const ROUTE_RESERVE = 235 * 1024;

/** Connections on which nothing is prefetched (Docusaurus itself only skips 2g). */
const SLOW = new Set(["slow-2g", "2g", "3g"]);

/** Whether prefetching is off for this connection: the reader saves data, or it is slow. */
export function prefetchOff(connection: Connection): boolean {
  return Boolean(connection?.saveData) || SLOW.has(connection?.effectiveType ?? "");
}

/** Where the wrapper looks: idle periods, the connection, and the bytes prefetched so far. */
export type Environment = {
  idle(run: (deadline: Deadline) => void): void;
  connection(): Connection;
  spent(): number;
};

/**
 * Wraps `docusaurus` so prefetches are queued and run, one at a time, in
 * the idle periods `env.idle` gives. A route's size is known only once it
 * has loaded, so before each the bytes `env.spent()` reports are checked
 * against `budget` leaving room for a route as large as the largest so far,
 * and never less than `reserve` (links come in whatever order the reader
 * scrolls them into view, and a later route may be the largest); when there
 * is no room left the queue is dropped.
 */
export function idlePrefetching(
  docusaurus: Docusaurus,
  env: Environment,
  budget = PREFETCH_BUDGET,
  reserve = ROUTE_RESERVE
): Docusaurus {
  const queue: string[] = [];
  let busy = false;
  let largest = 0;
  let exhausted = false;

  const next = () => {
    if (busy || exhausted || !queue.length) return;
    busy = true;
    env.idle(() => {
      const before = env.spent();
      const full = before + Math.max(largest, reserve) > budget;
      if (full || prefetchOff(env.connection())) {
        exhausted = full;
        queue.length = 0;
        busy = false;
        return;
      }
      const path = queue.shift()!;
      const done = () => {
        largest = Math.max(largest, env.spent() - before);
        busy = false;
        next();
      };
      // Docusaurus returns false when it fetches nothing (fetched already),
      // else a promise that settles once the route's files have loaded.
      Promise.resolve(docusaurus.prefetch(path)).then(done, done);
    });
  };

  return Object.freeze({
    ...docusaurus,
    prefetch(path: string) {
      if (exhausted || prefetchOff(env.connection())) return false;
      queue.push(path);
      next();
      return true;
    },
  });
}

/** The bytes of a resource entry, as they came over the network (or from the cache). */
const size = (entry: PerformanceResourceTiming) => entry.transferSize || entry.encodedBodySize;

/**
 * The bytes of every prefetched file so far: resources loaded by a
 * `<link rel=prefetch>` element, as Docusaurus prefetches. The page's own
 * `<link>` files (its stylesheet, preloaded logos, the icon) are loaded by
 * links too, and counting them would leave no room for any route on a page
 * whose stylesheet is large; so a resource counts only when a prefetch link
 * in the document names it. The timeline is read when asked: an observer is
 * told of a file only some time after it loaded, and a count that lags lets
 * the next prefetch start past the budget. The observer's count stands in
 * once the timeline's buffer is full and drops new entries.
 */
function prefetchedBytes(): () => number {
  if (typeof performance === "undefined" || typeof PerformanceObserver === "undefined") return () => 0;
  const prefetchLinks = () =>
    new Set(Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel="prefetch"]'), (link) => link.href));
  const prefetched = (entries: PerformanceResourceTiming[]) => {
    const links = prefetchLinks();
    let bytes = 0;
    for (const entry of entries) if (entry.initiatorType === "link" && links.has(entry.name)) bytes += size(entry);
    return bytes;
  };
  let observed = 0;
  new PerformanceObserver((list) => {
    observed += prefetched(list.getEntries() as PerformanceResourceTiming[]);
  }).observe({ type: "resource", buffered: true });
  return () => Math.max(prefetched(performance.getEntriesByType("resource") as PerformanceResourceTiming[]), observed);
}

// (A plain check rather than ExecutionEnvironment, so the tests can import
// idlePrefetching under Node.)
if (typeof window !== "undefined") {
  const spent = prefetchedBytes();
  const env: Environment = {
    idle: (run) => {
      if ("requestIdleCallback" in window) window.requestIdleCallback(run, { timeout: 5000 });
      else setTimeout(() => run({ timeRemaining: () => 10 }), 300);
    },
    connection: () => (navigator as Navigator & { connection?: Connection }).connection,
    spent,
  };
  // Docusaurus mounts its API on window.docusaurus right after the client
  // modules run; catch that assignment and mount the wrapped one instead.
  let mounted: Docusaurus | undefined;
  Object.defineProperty(window, "docusaurus", {
    configurable: true,
    get: () => mounted,
    set(value: Docusaurus) {
      mounted = idlePrefetching(value, env);
    },
  });
}
