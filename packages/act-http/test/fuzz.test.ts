/**
 * A property-based fuzzer built from the API's own OpenAPI document: for
 * every route it sends random requests — bodies drawn from the route's
 * schema (valid) and arbitrary JSON, junk and oversized values (invalid),
 * with random credentials, ids, If-Match, Idempotency-Key and query strings
 * — and checks that the server never answers 5xx, that every error is a
 * problem document, and that no 4xx changed the store.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { http } from "../src/index.js";
import { alice, app, bob, options, TOKENS } from "./notes.js";

// No consumer: only the requests change the store, and a wait ends at once.
const api = http(app, { ...options, wait: { timeoutMillis: 1 } });
type Schema = { [key: string]: any };
const doc = api.openapi as unknown as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (schema: Schema): Schema =>
  schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!]! : schema;

/** Values a JSON Schema (the subset zod writes for these schemas) accepts. */
function valid(schema: Schema): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  switch (s.type) {
    case "string":
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) });
    case "integer":
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
    case "number":
      return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(valid(s.items ?? {}), { maxLength: 3 });
    case "object": {
      const required = new Set<string>(s.required ?? []);
      const shape = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valid(v as Schema)]));
      return fc.record(shape, { requiredKeys: [...required] as never });
    }
    default:
      return fc.jsonValue();
  }
}

/** Bodies the schema may refuse: any JSON, junk, huge or deep values. */
const invalid = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
  fc.constant('{"title":"x".repeat'),
  fc.constant(JSON.stringify({ title: "t", body: "z".repeat(70_000) })),
  fc.constant(`${"[".repeat(100)}${"]".repeat(100)}`),
  fc.constant('{"__proto__":{"admin":true},"constructor":{"prototype":{}}}')
);

const ids = fc.oneof(
  fc.constantFrom("a1", "a2", "b1", "none"),
  fc.string({ maxLength: 12 }),
  fc.constant("x".repeat(300))
);
const credentials = fc
  .oneof(
    // Mostly callers the API knows, so the requests get past authentication.
    { arbitrary: fc.constant({ Authorization: `Bearer ${TOKENS.alice}` }), weight: 6 },
    { arbitrary: fc.constant({ Authorization: `Bearer ${TOKENS.bob}` }), weight: 3 },
    fc.constantFrom<Record<string, string>>(
      {},
      { Authorization: "Bearer constructor" },
      { Authorization: "Bearer __proto__" },
      { Authorization: `Basic ${TOKENS.alice}` },
      { Authorization: `Bearer ${TOKENS.alice.slice(1)}` }
    )
  )
  .map((headers): Record<string, string> => headers);
const ifMatch = fc.option(
  fc.oneof(fc.constantFrom('"0"', '"1"', '"-1"', '"99"', "*", 'W/"1"', '"1", "2"'), fc.string()),
  {
    nil: undefined,
  }
);
const idempotencyKey = fc.option(fc.oneof(fc.constantFrom("k1", "k2"), fc.string({ maxLength: 250 })), {
  nil: undefined,
});
const query = fc.dictionary(
  fc.constantFrom("wait", "limit", "closed", "after", "x"),
  fc.oneof(fc.constantFrom("reactions", "true", "false", "5", "0", "-1", "1e9"), fc.string({ maxLength: 8 })),
  { maxKeys: 3 }
);

/** One random request for a route of the document. */
const request = (path: string, method: string, operation: any) =>
  fc
    .record({
      id: ids,
      credentials,
      ifMatch,
      idempotencyKey,
      query,
      body: operation.requestBody
        ? fc.oneof(
            valid(operation.requestBody.content["application/json"].schema).map((v) => JSON.stringify(v)),
            invalid
          )
        : fc.constant(undefined),
      contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain"),
    })
    .map(({ id, credentials, ifMatch, idempotencyKey, query, body, contentType }) => {
      const url = new URL(`http://x${path.replace("{id}", encodeURIComponent(id))}`);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      const headers = new Headers(credentials);
      if (ifMatch !== undefined) headers.set("If-Match", ifMatch);
      if (idempotencyKey !== undefined) headers.set("Idempotency-Key", idempotencyKey);
      if (body !== undefined) headers.set("Content-Type", contentType);
      return {
        label: `${method.toUpperCase()} ${url.pathname}${url.search}`,
        request: () => new Request(url, { method: method.toUpperCase(), headers, body }),
      };
    });

const events = async () => (await app.query({ with_snaps: true })).count;

describe("fuzzing every route of the OpenAPI document", () => {
  it("never answers 5xx, answers every error as a problem, and changes nothing on a 4xx", async () => {
    // Notes of both users for the requests to find.
    for (const [id, actor] of [
      ["a1", alice],
      ["a2", alice],
      ["b1", bob],
    ] as const)
      await app.do("Create", { stream: `note-${id}`, actor }, { title: id, body: "" });
    const routes = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => request(path, method, operation))
    );
    let runs = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(...routes), async ({ label, request }) => {
        runs++;
        const before = await events();
        const res = await api.fetch(request());
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, label).toBeLessThan(500);
        if (res.headers.get("Content-Type")?.startsWith("text/event-stream")) await res.body?.cancel();
        if (res.status >= 400) {
          expect(res.headers.get("Content-Type"), label).toBe("application/problem+json");
          const problem = await res.json();
          expect(problem, label).toMatchObject({
            type: "about:blank",
            status: res.status,
            code: expect.stringMatching(/^ERR_/),
          });
          expect(JSON.stringify(problem), label).not.toMatch(/\bat .+:\d+|node_modules|stack/);
          expect(await events(), label).toBe(before);
        }
      }),
      { numRuns: Number(process.env.ACT_HTTP_FUZZ_RUNS ?? 1_000) }
    );
    console.log(
      `act-http fuzzer: ${runs} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`
    );
    // Both kinds were reached: requests that passed and requests that were refused.
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
  });
});
