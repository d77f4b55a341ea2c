/** One difference between two JSON values, at a path such as `a.b[2]`. */
export type Change =
  | { readonly path: string; readonly kind: "added"; readonly after: unknown }
  | { readonly path: string; readonly kind: "removed"; readonly before: unknown }
  | { readonly path: string; readonly kind: "changed"; readonly before: unknown; readonly after: unknown };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The differences between two states, deepest first where objects nest:
 * objects are compared key by key, anything else (arrays included) as a
 * whole, because a state's arrays are usually replaced, not edited.
 */
export function diff(before: unknown, after: unknown, path = ""): Change[] {
  if (isObject(before) && isObject(after)) {
    const changes: Change[] = [];
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const at = path ? `${path}.${key}` : key;
      if (!(key in after)) changes.push({ path: at, kind: "removed", before: before[key] });
      else if (!(key in before)) changes.push({ path: at, kind: "added", after: after[key] });
      else changes.push(...diff(before[key], after[key], at));
    }
    return changes;
  }
  return same(before, after) ? [] : [{ path: path || "(state)", kind: "changed", before, after }];
}
