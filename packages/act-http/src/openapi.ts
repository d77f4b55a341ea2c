/**
 * The OpenAPI 3.1 document of an app's API, made from the same zod schemas
 * that validate its requests, with zod's own `z.toJSONSchema` (JSON Schema
 * draft 2020-12, the dialect OpenAPI 3.1 uses). It lists only what is
 * served — the actions, streams and reads the app declared — so the
 * document is also a review of the API's surface.
 */
import { z } from "zod";
import { HttpErrors } from "./problem.js";
import type { ApiInfo, Settings } from "./settings.js";

/** A JSON Schema or OpenAPI object, as plain JSON. */
type Json = { [key: string]: unknown };

/**
 * An OpenAPI 3.1 document, as `http(app, …).openapi` holds it and `GET
 * /openapi.json` serves it.
 *
 * @experimental
 * @example
 * ```ts
 * const document: OpenApiDocument = { openapi: "3.1.0", info: { title: "Shop", version: "1" }, paths: {} };
 * ```
 */
export type OpenApiDocument = {
  /** The OpenAPI version, `3.1.0`. */
  openapi: string;
  /** The API's title and version. */
  info: ApiInfo;
  /** Every served route. */
  paths: Record<string, unknown>;
  /** The schemas the routes refer to, and the security scheme. */
  components?: Record<string, unknown>;
  /** Every route needs credentials. */
  security?: Record<string, string[]>[];
};

/** A zod schema as JSON Schema (draft 2020-12), without its own `$schema` (the document says the dialect once). */
function schemaOf(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Json;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const PROBLEM_CODES = ["ERR_VALIDATION", "ERR_INVARIANT", "ERR_CONCURRENCY", "ERR_IDEMPOTENCY_KEY_REUSED", "ERR_STORE"];

/** An error answer: a problem document. */
const problemAnswer = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});

/** The error answers every authenticated route may give. */
const common = {
  "400": problemAnswer("Bad input: `errors` lists each bad field's path"),
  "401": problemAnswer("No credentials, or credentials the API does not accept"),
  "403": problemAnswer("The caller may not do this"),
  "404": problemAnswer("No such route, state, action, read or stream"),
  "500": problemAnswer("Something failed on the server (details in its log only)"),
  "503": problemAnswer("The server is stopping, or the store is unavailable; retry later"),
};

const etagHeader = {
  ETag: {
    description: 'The stream\'s version, quoted: send it back in If-Match, e.g. "3"',
    schema: { type: "string" },
  },
};

const idParameter = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", minLength: 1, maxLength: 200 },
};

/** Builds the document of an app's served routes. */
export function openapi(settings: Settings): OpenApiDocument {
  const schemas: Json = {
    Problem: {
      type: "object",
      required: ["type", "title", "status", "code", "detail"],
      properties: {
        type: { type: "string", const: "about:blank" },
        title: { type: "string" },
        status: { type: "integer" },
        code: { type: "string", examples: [...PROBLEM_CODES, ...Object.values(HttpErrors)] },
        detail: { type: "string" },
        errors: {
          type: "array",
          items: {
            type: "object",
            required: ["path", "message"],
            properties: { path: { type: "string" }, message: { type: "string" } },
          },
        },
        version: { type: "integer" },
      },
    },
  };
  const paths: Json = {};
  for (const [name, served] of settings.states) {
    schemas[`${name}State`] = {
      type: "object",
      required: ["stream", "version", "state"],
      properties: {
        stream: { type: "string" },
        version: { type: "integer", minimum: -1 },
        state: schemaOf(served.state.state as z.ZodType, "output"),
      },
    };
    paths[`/streams/${name}/{id}`] = {
      get: {
        operationId: `get${name}`,
        summary: `A ${name} stream's state and version`,
        parameters: [idParameter],
        responses: {
          "200": {
            description: "The state; its version is the ETag",
            headers: etagHeader,
            content: { "application/json": { schema: ref(`${name}State`) } },
          },
          ...common,
        },
      },
    };
    paths[`/streams/${name}/{id}/events`] = {
      get: {
        operationId: `events${name}`,
        summary: `A ${name} stream's events as they are committed (server-sent events)`,
        parameters: [
          idParameter,
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string", pattern: "^\\d+$" } },
          { name: "after", in: "query", required: false, schema: { type: "string", pattern: "^\\d+$" } },
        ],
        responses: {
          "200": {
            description: "An event stream: one SSE message per event",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...common,
        },
      },
    };
  }
  for (const [name, served] of settings.actions) {
    const state = served.state.name;
    schemas[`${name}Payload`] = schemaOf(served.schema, "input");
    const answer = {
      headers: etagHeader,
      content: { "application/json": { schema: ref(`${state}State`) } },
    };
    paths[`/streams/${state}/{id}/${name}`] = {
      post: {
        operationId: name,
        summary: served.route.summary ?? `Runs ${name} on a ${state} stream`,
        parameters: [
          idParameter,
          { name: "If-Match", in: "header", required: false, schema: { type: "string", pattern: '^"(-1|\\d+)"$' } },
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            schema: { type: "string", minLength: 1, maxLength: 200 },
          },
          { name: "wait", in: "query", required: false, schema: { type: "string", enum: ["reactions"] } },
        ],
        requestBody: { required: true, content: { "application/json": { schema: ref(`${name}Payload`) } } },
        responses: {
          "200": { description: "Committed; the stream's state after it", ...answer },
          "202": {
            description: "Committed; its reactions had not all run when the wait ended (poll Location)",
            ...answer,
            headers: { ...etagHeader, Location: { description: "The stream's URL", schema: { type: "string" } } },
          },
          ...common,
          "412": problemAnswer("The stream is not at the version in If-Match: `version` is where it is"),
          "413": problemAnswer("The body, or a field of it, is over a limit"),
          "415": problemAnswer("The body is not application/json"),
          "422": problemAnswer(
            "A rule of the state refuses the action now, or the Idempotency-Key was used for another request"
          ),
        },
      },
    };
  }
  for (const [name, route] of settings.reads) {
    const query = schemaOf(route.query, "input") as { properties?: Json; required?: string[] };
    schemas[`${name}Answer`] = schemaOf(route.answer, "output");
    paths[`/reads/${name}`] = {
      get: {
        operationId: `read_${name}`,
        summary: route.summary ?? `Read ${name}`,
        parameters: Object.entries(query.properties ?? {}).map(([param, schema]) => ({
          name: param,
          in: "query",
          required: query.required?.includes(param) ?? false,
          schema,
        })),
        responses: {
          "200": { description: "The answer", content: { "application/json": { schema: ref(`${name}Answer`) } } },
          ...common,
        },
      },
    };
    if (route.projection)
      paths[`/reads/${name}/changes`] = {
        get: {
          operationId: `changes_${name}`,
          summary: `Read ${name} live: the answer, then again each time projection ${route.projection.name} moves (server-sent events)`,
          parameters: [
            ...(paths[`/reads/${name}`] as { get: { parameters: unknown[] } }).get.parameters,
            { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string", pattern: "^\\d+$" } },
          ],
          responses: {
            "200": {
              description: `An event stream: one \`answer\` message per new answer, its data as ${name}Answer, its id the projection's position`,
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            ...common,
          },
        },
      };
  }
  return {
    openapi: "3.1.0",
    info: { ...settings.info },
    paths,
    components: { schemas, securitySchemes: { credentials: { type: "http", scheme: "bearer" } } },
    security: [{ credentials: [] }],
  };
}
