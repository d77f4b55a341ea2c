/**
 * The page's live mark, `<html data-live>`: set once React has hydrated the
 * page and the effects that enable its controls have run (by the
 * `src/theme/Root` wrapper).
 *
 * Pages load their code after the first paint (src/plugins/deferred-start),
 * so for a moment a page is the server's HTML only. The loader waits for
 * this mark before replaying a press made in that moment, and a page-chunk
 * failure before it is shown by src/client/chunk-failure.ts.
 */
export const LIVE_ATTRIBUTE = "data-live";

/** Sets the mark on `document` (once is enough: it stays for the page's life). */
export function markLive(document: Document): void {
  document.documentElement.setAttribute(LIVE_ATTRIBUTE, "");
}
