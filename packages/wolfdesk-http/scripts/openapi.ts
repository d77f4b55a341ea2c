/**
 * Writes the WolfDesk API's OpenAPI document to `openapi.json` in this
 * package, where the HTTP guide renders it: `npm run openapi -w
 * @act-root/wolfdesk-http` after a change to the API (a test fails while the
 * committed file differs from what the API serves).
 */
import { writeFileSync } from "node:fs";
import { OPENAPI_FILE, openapiText } from "../src/openapi-file.js";

writeFileSync(OPENAPI_FILE, openapiText());
console.log(`wrote ${OPENAPI_FILE.pathname}`);
