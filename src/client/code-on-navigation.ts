/**
 * Starts loading the highlighted code block (Prism and the theme's block)
 * when the reader first moves to another page inside the site.
 *
 * Code blocks of the page a reader lands on keep their server HTML and need
 * no Prism (src/theme/CodeBlock); a page reached by a client-side
 * navigation renders its blocks anew and does. Asking for that code as the
 * navigation starts lets it arrive with the page's own code, so its blocks
 * rarely show as plain text first. Later navigations find it loaded.
 */
type Location = { pathname: string };

export function onRouteUpdate({
  location,
  previousLocation,
}: {
  location: Location;
  previousLocation: Location | null;
}): void {
  if (previousLocation && previousLocation.pathname !== location.pathname)
    void import("../theme/CodeBlock/Highlighted");
}
