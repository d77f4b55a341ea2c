/**
 * Lets the live calculator bundle packages/calculator from its TypeScript
 * sources, whose imports say "./x.js" for "./x.ts" (NodeNext style).
 */
import { resolve } from "node:path";
import type { LoadContext, Plugin } from "@docusaurus/types";

export default function calculatorSources(context: LoadContext): Plugin {
  return {
    name: "act-calculator-sources",
    configureWebpack: () => ({
      module: {
        rules: [
          {
            include: [resolve(context.siteDir, "packages/calculator/src")],
            resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
          },
        ],
      },
    }),
  };
}
