/**
 * Notes the reader's first move to another page inside the site, and starts
 * loading the highlighted code block (Prism and the theme's block) then.
 *
 * Code blocks of the page a reader lands on keep their server HTML and need
 * no Prism (src/theme/CodeBlock); a page reached by a client-side
 * navigation has no server HTML, so its blocks render anew and do. Asking
 * for that code as the navigation starts lets it arrive with the page's own
 * code, so its blocks rarely show as plain text first. Later navigations
 * find it loaded.
 */
type Location = { pathname: string };

let navigated = false;

/** True once the reader has moved to another page inside the site: no HTML is hydrated from then on. */
export function hasNavigated(): boolean {
  return navigated;
}

export function onRouteUpdate({
  location,
  previousLocation,
}: {
  location: Location;
  previousLocation: Location | null;
}): void {
  if (!previousLocation || previousLocation.pathname === location.pathname) return;
  navigated = true;
  void import("../theme/CodeBlock/Highlighted");
}
