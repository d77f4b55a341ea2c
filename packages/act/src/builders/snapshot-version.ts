/**
 * The version a state's snapshots are written under, so loads ignore the
 * snapshots of an older definition.
 */
import { toJSONSchema, type z } from "zod";
import { shapeSchema } from "./revive.js";

/** FNV-1a, 32 bits, in hex: a short, stable fingerprint (no crypto needed in browsers). */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * The snapshot version of a definition: name, a fingerprint of the shape its
 * state schema stores, and the explicit version.
 *
 * The fingerprint covers only what a stored snapshot looks like: the JSON
 * Schema of the schema's output side (`shapeSchema`), without `default`
 * values. Defaults fill values that are missing and never change the shape —
 * and a dynamic one (`z.date().default(() => new Date())`) would give a new
 * fingerprint on every build, so every snapshot would be ignored after each
 * restart. A transform counts as keeping its input's shape unless its output
 * is described (`.pipe(schema)`, `z.codec`); one that changes the stored
 * shape without saying so needs the explicit version bumped.
 */
export function versionOf(name: string, schema: z.ZodType, version = 0): string {
  let shape: string;
  try {
    shape = JSON.stringify(
      toJSONSchema(shapeSchema(schema), {
        unrepresentable: "any",
        io: "output",
        override: (ctx) => {
          delete (ctx.jsonSchema as { default?: unknown }).default;
        },
      })
    );
  } catch {
    shape = ""; // a schema JSON Schema cannot describe: only the explicit version counts
  }
  return `${name}@${fingerprint(shape)}.${version}`;
}
