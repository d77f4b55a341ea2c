// The one route that stands for every API page in the browser's route table
// (see ./index.ts). It is exact on exactly their paths, so it is matched
// where one of them would have been and nowhere else.
import { useEffect, useState, type ComponentType, type ReactNode } from "react";
import renderRoutes from "@docusaurus/renderRoutes";
import { matchPath } from "@docusaurus/router";
import type { RouteConfig } from "react-router-config";
import Loading from "@theme/Loading";
import { loadOnce } from "../../client/load-once";
import { addPrefetcher } from "../../client/route-prefetchers";

// Set by the bundler's runtime: the URL of a chunk by its name (Docusaurus
// adds it for its own prefetching).
declare const __webpack_require__: { gca?: (chunkName: string) => string | undefined };

type Preloadable = { preload?: () => Promise<unknown> };
export type ApiPages = ComponentType & { preload(pathname?: string): Promise<unknown> };

/** A low-priority fetch of a file the reader may need next. */
function prefetchFile(url: string): void {
  const link = document.createElement("link");
  link.rel = "prefetch";
  link.href = url;
  document.head.appendChild(link);
}

/**
 * The stand-in's component, for the API pages at `paths`, whose part is the
 * chunk `chunkName` that `load` loads. `preload(pathname)` — which
 * Docusaurus' route preloader runs before a page hydrates and before a
 * client-side navigation renders (src/client/preload-once.js passes the
 * path) — loads the API part once, then the code of the page at
 * `pathname`. Rendering then shows that page's route, as the full table
 * would have. A link to an API page that
 * Docusaurus prefetches also prefetches the part, until it has loaded.
 */
export default function apiPages(
  paths: string[],
  chunkName: string,
  load: () => Promise<{ default: RouteConfig[] }>
): ApiPages {
  const loadRoutes = loadOnce(() => load().then((part) => part.default));

  function ApiPagesRoute(): ReactNode {
    const [loaded, setLoaded] = useState(loadRoutes.current);
    const [error, setError] = useState<Error>();
    // Only when the preloader did not run or its load failed (a dropped
    // connection on the first visit): load now, or show why not.
    useEffect(() => {
      if (!loaded) loadRoutes().then(setLoaded, setError);
    }, [loaded]);
    if (loaded) return renderRoutes(loaded);
    return (
      <Loading
        isLoading={!error}
        pastDelay={Boolean(error)}
        timedOut={false}
        error={error}
        retry={() => window.location.reload()}
      />
    );
  }

  let prefetched = false;
  addPrefetcher((path) => {
    if (prefetched || loadRoutes.started() || !matchPath(path, { path: paths, exact: true })) return;
    const url = __webpack_require__.gca?.(chunkName);
    if (!url) return;
    prefetched = true;
    prefetchFile(url);
  });

  return Object.assign(ApiPagesRoute, {
    preload: async (pathname?: string) => {
      const table = await loadRoutes();
      if (!pathname) return;
      // The API routes are exact leaves: the ones whose path is the address.
      const pages = table.filter((route) => matchPath(pathname, route));
      await Promise.all(pages.map((route) => (route.component as Preloadable | undefined)?.preload?.()));
    },
  });
}
