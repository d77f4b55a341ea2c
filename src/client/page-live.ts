/**
 * Marks the page live: `<html data-live>` once React has hydrated it and
 * its effects have run.
 *
 * Until then a page is the server's HTML only. CSS uses this mark for what
 * must match the server's render until then (code blocks keep the light
 * colours they were rendered in; see src/css/custom.css), and the browser
 * tests wait for it before they click.
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
