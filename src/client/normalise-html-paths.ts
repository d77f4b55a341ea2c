/**
 * Paths ending in .html or /index.html are normalised to the plain path, so
 * links that name the file work like the page's address. Docusaurus already
 * matches such a path to the plain path's route, but leaves the address bar
 * alone, and components that read the raw
 * location (the active sidebar item, say) then render differently from the
 * server's HTML. A client module runs before the app hydrates, so fixing the
 * URL here keeps the first render identical to the static page.
 */
import ExecutionEnvironment from "@docusaurus/ExecutionEnvironment";

/** "/x/index.html" → "/x/", "/x.html" → "/x"; anything else unchanged. */
export function plainPath(pathname: string): string {
  if (pathname.endsWith("/index.html")) return pathname.slice(0, -"index.html".length);
  if (pathname.endsWith(".html")) return pathname.slice(0, -".html".length);
  return pathname;
}

if (ExecutionEnvironment.canUseDOM) {
  const { pathname, search, hash } = window.location;
  const plain = plainPath(pathname);
  // 404.html is the not-found page itself, served for unknown paths.
  if (plain !== pathname && !pathname.endsWith("/404.html")) {
    window.history.replaceState(window.history.state, "", `${plain}${search}${hash}`);
  }
}
