/**
 * The WolfDesk API's OpenAPI document as the committed `openapi.json` holds
 * it, for the guide that renders it and the test that keeps it current.
 */
import { api } from "./http.js";

/** Where the document is committed. */
export const OPENAPI_FILE = new URL("../openapi.json", import.meta.url);

/** The document the API serves, as the file holds it (no caller is needed to build it). */
export function openapiText(): string {
  const served = api(() => undefined);
  return `${JSON.stringify(served.openapi, null, 2)}\n`;
}
