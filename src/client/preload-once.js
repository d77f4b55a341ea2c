// Docusaurus renders a page only once its route chunks have preloaded; when
// they fail on the first load (a stale deployment, a dropped connection) the
// page stays dead. This wrapper lets that first render happen anyway, so the
// route's loading-error screen (the error text and a Retry button) shows.
// Later preloads, on client navigation, still reject: Docusaurus then reloads
// the page.
import preload from "act-original-preload";

let first = true;

export default function preloadOnce(pathname) {
  const loading = preload(pathname);
  if (!first) return loading;
  first = false;
  return loading.catch((error) => {
    console.warn(`Some of this page's code failed to load: ${error}`);
  });
}
