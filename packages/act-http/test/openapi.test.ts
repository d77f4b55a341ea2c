/**
 * The OpenAPI document: valid OpenAPI 3.1 by a standard validator, made
 * from the app's own zod schemas, listing only what is served — and the
 * client types committed beside the tests are what it generates.
 */
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { GENERATED, typesOf } from "./client-types.js";
import { api } from "./notes.js";

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(api.openapi) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes each served action's body with its zod schema, and leaves out the actions not served", () => {
    const { paths, components } = api.openapi as unknown as {
      paths: Record<string, any>;
      components: { schemas: Record<string, any> };
    };
    expect(Object.keys(paths).sort()).toEqual([
      "/reads/notes",
      "/reads/notes/changes",
      "/streams/Note/{id}",
      "/streams/Note/{id}/Close",
      "/streams/Note/{id}/Create",
      "/streams/Note/{id}/Edit",
      "/streams/Note/{id}/events",
    ]);
    expect(components.schemas.CreatePayload).toMatchObject({
      type: "object",
      required: ["title", "body"],
      properties: {
        title: { type: "string", minLength: 1, maxLength: 100 },
        body: { type: "string", maxLength: 2000 },
      },
    });
    expect(components.schemas.TagPayload).toBeUndefined();
    expect(paths["/reads/notes"].get.parameters).toContainEqual(
      expect.objectContaining({ name: "limit", in: "query", required: false })
    );
    expect(paths["/streams/Note/{id}/Edit"].post.responses["412"]).toBeDefined();
  });

  it("generates the client types committed in test/generated (run `npx tsx test/client-types.ts` after a change)", async () => {
    expect(readFileSync(GENERATED, "utf8")).toBe(await typesOf(api.openapi));
  });
});
