// Docusaurus prefetches a link's code from what its main route table says
// the route needs. A route that loads more by itself (the API pages'
// stand-in, src/plugins/api-apart/pages.tsx, loads the API pages' part) adds
// a prefetcher here; src/client/idle-prefetch.ts runs them with Docusaurus'
// own prefetch, under the same rules (idle time, not on slow connections).
type Prefetcher = (path: string) => void;

const prefetchers: Prefetcher[] = [];

/** Adds a prefetcher, asked about every link Docusaurus prefetches. */
export function addPrefetcher(prefetcher: Prefetcher): void {
  prefetchers.push(prefetcher);
}

/** Asks every prefetcher about `path`. */
export function prefetchMore(path: string): void {
  for (const prefetcher of prefetchers) prefetcher(path);
}
