import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPENAPI_FILE, openapiText } from "../src/openapi-file.js";

describe("the OpenAPI document the HTTP guide renders", () => {
  it("is the one the API serves (run `npm run openapi -w @act-root/wolfdesk-http` after a change)", () => {
    // Compared as JSON: the formatter may lay the committed file out its own way.
    expect(JSON.parse(readFileSync(OPENAPI_FILE, "utf8"))).toEqual(JSON.parse(openapiText()));
  });
});
