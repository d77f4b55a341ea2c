import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readSchema, reviver } from "../../src/builders/revive.js";

/** What a store gives back: the value through JSON. */
const stored = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("reviver", () => {
  it("has nothing to do for a schema without dates", () => {
    expect(reviver(z.object({ at: z.string(), n: z.number(), list: z.array(z.string()) }))).toBeUndefined();
    expect(reviver(undefined)).toBeUndefined();
  });

  it("restores dates at the paths the schema declares, through wrappers, arrays, tuples and records", () => {
    const schema = z.object({
      at: z.date(),
      maybe: z.date().optional().nullable(),
      defaulted: z.date().default(() => new Date(0)),
      list: z.array(z.object({ when: z.date(), label: z.string() })),
      pair: z.tuple([z.string(), z.date()]),
      byKey: z.record(z.string(), z.date()),
      piped: z.date().pipe(z.date()),
      text: z.string(),
    });
    const value = {
      at: new Date(1),
      maybe: null,
      defaulted: new Date(2),
      list: [{ when: new Date(3), label: "2025-01-02T03:04:05.678Z" }],
      pair: ["2025-01-02T03:04:05.678Z", new Date(4)],
      byKey: { a: new Date(5) },
      piped: new Date(6),
      text: "2025-01-02T03:04:05.678Z",
    };
    const revived = reviver(schema)!(stored(value));
    expect(revived).toEqual(value);
    expect(schema.parse(revived)).toEqual(value);
  });

  it("picks the union option the revived value satisfies", () => {
    const schema = z.union([
      z.object({ kind: z.literal("at"), at: z.date() }),
      z.object({ kind: z.literal("text"), at: z.string() }),
    ]);
    const revive = reviver(schema)!;
    expect(revive(stored({ kind: "at", at: new Date(7) }))).toEqual({ kind: "at", at: new Date(7) });
    expect(revive({ kind: "text", at: "2025-01-02T03:04:05.678Z" })).toEqual({
      kind: "text",
      at: "2025-01-02T03:04:05.678Z",
    });
  });

  it("follows recursive schemas", () => {
    type Node = { at: Date; children: Node[] };
    const NodeSchema: z.ZodType<Node> = z.lazy(() => z.object({ at: z.date(), children: z.array(NodeSchema) }));
    const tree: Node = {
      at: new Date(1),
      children: [{ at: new Date(2), children: [{ at: new Date(3), children: [] }] }],
    };
    expect(reviver(NodeSchema)!(stored(tree))).toEqual(tree);
  });

  it("leaves a value that is not a valid date as it is, for the schema to report", () => {
    const revive = reviver(z.object({ at: z.date() }))!;
    expect(revive({ at: "not a date" })).toEqual({ at: "not a date" });
    expect(revive("not an object")).toBe("not an object");
  });
});

describe("the schema stored values are read with", () => {
  it("is the output side: pipes read as their output, bare transforms as stored, the rest kept", () => {
    const schema = z.object({
      cents: z.number().transform((n) => n * 100),
      at: z
        .string()
        .transform((s) => new Date(s))
        .pipe(z.date()),
      n: z.number().default(1),
      list: z.array(z.preprocess((v) => Number(v), z.number())),
    });
    const read = readSchema(schema);
    expect(read.parse({ cents: 150, at: new Date(0), list: [2] })).toEqual({
      cents: 150,
      at: new Date(0),
      n: 1,
      list: [2],
    });
    expect(read.safeParse({ cents: 1, at: "not a date", list: [] }).success).toBe(false);
    const plain = z.object({ a: z.string() });
    expect(readSchema(plain)).toBe(plain); // nothing to change: the same schema
  });

  it("handles recursive schemas", () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string().transform((s) => s.toUpperCase()),
      get children() {
        return z.array(Node);
      },
    });
    const read = readSchema(Node);
    expect(read.parse({ name: "a", children: [{ name: "b", children: [] }] })).toEqual({
      name: "a",
      children: [{ name: "b", children: [] }],
    });
  });
});
