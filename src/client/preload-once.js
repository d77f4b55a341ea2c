// Docusaurus renders a page only once its route chunks have preloaded; when
// they fail on the first load (a stale deployment, a dropped connection) the
// page stays dead. This preloader lets that first render happen anyway, so
// the route's loading-error screen (the error text and a Retry button)
// shows. Later preloads, on client navigation, still reject: Docusaurus then
// reloads the page.
//
// The preloading itself is Docusaurus' own (its lib/client/preload.js, which
// scripts/plugins.test.mjs compares this with), with one addition: each
// matched route's component is told the path being loaded. The one route
// that stands for every API page (src/plugins/api-apart) needs it to load
// the page asked for; other components ignore it.
import routes from "@generated/routes";
import { matchRoutes } from "react-router-config";

export function preloadRoutes(pathname) {
  const matches = Array.from(new Set([pathname, decodeURI(pathname)])).flatMap((path) =>
    matchRoutes(routes, path).map((match) => [match, path])
  );
  return Promise.all(matches.map(([match, path]) => match.route.component.preload?.(path)));
}

let first = true;

export default function preloadOnce(pathname) {
  const loading = preloadRoutes(pathname);
  if (!first) return loading;
  first = false;
  return loading.catch((error) => {
    console.warn(`Some of this page's code failed to load: ${error}`);
  });
}
