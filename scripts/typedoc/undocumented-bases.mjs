// TypeDoc plugin loaded by docusaurus-plugin-typedoc (see scripts/typedoc/options.ts).
//
// A class of ours may be written in two halves: `Act` extends
// `ActOperations`, which is not exported, so that each file stays short
// enough to read. TypeDoc still lists every public member of both on Act's
// page, but it also printed "Extends `ActOperations`" at the top and
// "Inherited from ActOperations.x" under each member of the base: a class a
// reader cannot import or open. This plugin makes such a class read as one:
// once TypeDoc has resolved the project, a class loses the base classes the
// reference does not document, and its members lose the "inherited from" and
// "overrides" links to them. Bases from elsewhere (`Error`) and bases the
// reference documents keep their lines.
import { Converter, ReferenceType, ReflectionKind } from "typedoc";

/**
 * Whether `type` names a type of one of our packages that the reference does
 * not document (it resolves to no page), e.g. `ActOperations` or
 * `ActOperations.drain`.
 *
 * @param {unknown} type - a base class or an inherited-from reference
 * @param {readonly string[]} ours - the packages the reference documents
 */
export function isUndocumentedOwn(type, ours) {
  return type instanceof ReferenceType && !type.reflection && !type.externalUrl && ours.includes(type.package ?? "");
}

/**
 * Drops, from one class, the base classes `undocumented` picks, and every
 * member's and signature's "inherited from"/"overrides" reference to a
 * member of them (`ActOperations.drain`, which resolves to no page). Returns
 * how many references it dropped.
 *
 * @param {import("typedoc").DeclarationReflection} reflection - a class
 * @param {(type: unknown) => boolean} undocumented - picks the base classes to drop
 */
export function withoutUndocumentedBases(reflection, undocumented) {
  const bases = reflection.extendedTypes ?? [];
  const dropped = bases.filter((type) => undocumented(type));
  if (!dropped.length) return 0;
  const kept = bases.filter((type) => !dropped.includes(type));
  reflection.extendedTypes = kept.length ? kept : undefined;
  // The "Extends" block is built from the base classes before this runs;
  // with none left and no subclass there is no hierarchy to show.
  if (!reflection.extendedTypes && !reflection.extendedBy) reflection.typeHierarchy = undefined;

  // "ActOperations.drain", or "ActOperations<S, E, A>.constructor".
  const names = new Set(dropped.map((type) => /** @type {ReferenceType} */ (type).name));
  const ofDropped = (ref) =>
    ref instanceof ReferenceType && !ref.reflection && names.has(ref.name.replace(/(<.*>)?\..*$/, ""));
  let count = dropped.length;
  const drop = (owner, key) => {
    if (ofDropped(owner[key])) {
      owner[key] = undefined;
      count++;
    }
  };
  for (const member of reflection.children ?? []) {
    for (const owner of [member, ...member.getAllSignatures()]) {
      drop(owner, "inheritedFrom");
      drop(owner, "overwrites");
    }
  }
  return count;
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(
    Converter.EVENT_RESOLVE_END,
    (context) => {
      const ours = app.options.getValue("packagesRequiringDocumentation");
      const undocumented = (type) => isUndocumentedOwn(type, ours);
      for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Class)) {
        withoutUndocumentedBases(/** @type {import("typedoc").DeclarationReflection} */ (reflection), undocumented);
      }
    },
    // After TypeDoc's own resolve-end work, which links inherited members to
    // their base and builds the class hierarchy.
    -100
  );
}
