/**
 * Writes every page also as <route>.html, so a static host such as GitHub
 * Pages serves /docs/intro.html as the intro page; the client module
 * src/client/normalise-html-paths.ts then shows the plain path in the address
 * bar.
 */
import { copyFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Plugin } from "@docusaurus/types";

export default function htmlRouteFiles(): Plugin {
  return {
    name: "act-html-route-files",
    async postBuild({ outDir, routesPaths, baseUrl }) {
      for (const route of routesPaths) {
        if (route.endsWith("/") || route.endsWith(".html")) continue;
        const path = route.slice(baseUrl.length);
        const page = resolve(outDir, path, "index.html");
        const flat = resolve(outDir, `${path}.html`);
        if (existsSync(page) && !existsSync(flat)) copyFileSync(page, flat);
      }
    },
  };
}
