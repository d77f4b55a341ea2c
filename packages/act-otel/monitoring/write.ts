/** Writes `act-dashboard.json` from `dashboard.ts`: `npm run monitoring -w @act-root/act-otel`. */
import { writeFileSync } from "node:fs";
import { dashboard } from "./dashboard.js";

/** The file's text: what a test compares with the committed file. */
export const dashboardJson = () => `${JSON.stringify(dashboard, null, 2)}\n`;

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/"))) {
  writeFileSync(new URL("./act-dashboard.json", import.meta.url), dashboardJson());
}
