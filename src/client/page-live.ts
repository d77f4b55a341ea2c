/**
 * Marks the page live: `<html data-live>` once React has hydrated it and
 * its effects have run.
 *
 * Pages load their code after the first paint (src/plugins/deferred-start),
 * so for a moment a page is the server's HTML only. The loader waits for
 * this mark before replaying a press made in that moment, and CSS uses it
 * for what must match the server's render until then (code blocks keep the
 * light colours they were rendered in; see src/css/custom.css).
 */
export const LIVE_ATTRIBUTE = "data-live";

export function onRouteDidUpdate({ previousLocation }: { previousLocation: unknown }): void {
  // The first call comes from the hydrating render; later ones are client
  // navigations, when the page is live already.
  if (previousLocation) return;
  // Layout effects run now; the page's other effects (those that enable
  // controls or add keyboard shortcuts) run before the next frame's task.
  requestAnimationFrame(() => setTimeout(() => document.documentElement.setAttribute(LIVE_ATTRIBUTE, ""), 0));
}
