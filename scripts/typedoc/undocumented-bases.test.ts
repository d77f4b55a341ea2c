import assert from "node:assert/strict";
import {
  DeclarationReflection,
  FileRegistry,
  ProjectReflection,
  ReferenceType,
  ReflectionKind,
  SignatureReflection,
} from "typedoc";
import { describe, test } from "vitest";
import { isUndocumentedOwn, withoutUndocumentedBases } from "./undocumented-bases.mjs";

const OURS = ["@act-root/act"];

/** A class of `project` with a base and members inherited from it, as TypeDoc leaves them. */
function classWith(project: ProjectReflection, name: string, base: string, from: string, members: string[]) {
  const reflection = new DeclarationReflection(name, ReflectionKind.Class, project);
  reflection.extendedTypes = [ReferenceType.createBrokenReference(base, project, from)];
  reflection.typeHierarchy = { types: reflection.extendedTypes, next: { types: [], isTarget: true } };
  reflection.children = members.map((member) => {
    const child = new DeclarationReflection(member, ReflectionKind.Method, reflection);
    child.inheritedFrom = ReferenceType.createBrokenReference(`${base}.${member}`, project, from);
    const signature = new SignatureReflection(member, ReflectionKind.CallSignature, child);
    signature.inheritedFrom = ReferenceType.createBrokenReference(`${base}.${member}`, project, from);
    child.signatures = [signature];
    return child;
  });
  return reflection;
}

const references = (reflection: DeclarationReflection) =>
  (reflection.children ?? []).flatMap((member) =>
    [member, ...member.getAllSignatures()].flatMap((owner) =>
      [owner.inheritedFrom, owner.overwrites].filter(Boolean).map(String)
    )
  );

describe("undocumented-bases: a class whose base the reference does not document reads as one class", () => {
  test("Act loses 'Extends ActOperations' and every 'Inherited from ActOperations.x', generic names included", () => {
    const project = new ProjectReflection("act", new FileRegistry());
    const act = classWith(project, "Act", "ActOperations", "@act-root/act", ["drain", "start"]);
    const created = new DeclarationReflection("constructor", ReflectionKind.Constructor, act);
    created.inheritedFrom = ReferenceType.createBrokenReference(
      "ActOperations<S, E, A>.constructor",
      project,
      "@act-root/act"
    );
    act.children?.push(created);
    const undocumented = (type: unknown) => isUndocumentedOwn(type, OURS);

    assert.equal(withoutUndocumentedBases(act, undocumented), 6);
    assert.equal(act.extendedTypes, undefined);
    assert.equal(act.typeHierarchy, undefined);
    assert.deepEqual(references(act), []);
    // The members stay: they are Act's API.
    assert.deepEqual(
      act.children?.map((member) => member.name),
      ["drain", "start", "constructor"]
    );
  });

  test("a base from elsewhere (Error) keeps its 'Extends' and 'Inherited from' lines", () => {
    const project = new ProjectReflection("act", new FileRegistry());
    const error = classWith(project, "StoreError", "Error", "typescript", ["toString"]);
    assert.equal(
      withoutUndocumentedBases(error, (type) => isUndocumentedOwn(type, OURS)),
      0
    );
    assert.deepEqual(error.extendedTypes?.map(String), ["Error"]);
    assert.ok(error.typeHierarchy);
    assert.deepEqual(references(error), ["Error.toString", "Error.toString"]);
  });

  test("a base the reference documents is kept: it resolves to its page", () => {
    const project = new ProjectReflection("act", new FileRegistry());
    const base = new DeclarationReflection("Base", ReflectionKind.Class, project);
    project.registerReflection(base, undefined, undefined);
    const resolved = ReferenceType.createResolvedReference("Base", base, project);
    resolved.package = "@act-root/act";
    assert.equal(isUndocumentedOwn(resolved, OURS), false);
    assert.equal(
      isUndocumentedOwn(ReferenceType.createBrokenReference("Hidden", project, "@act-root/act"), OURS),
      true
    );
    assert.equal(isUndocumentedOwn("ActOperations", OURS), false);
  });
});
