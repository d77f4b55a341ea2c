/**
 * Prints the public API of the core's entry points — every export with its
 * kind, its stability marker and its signatures (a class's or an object
 * type's public members one per line) — as text that diffs well, so a change
 * to the API shows up as a change to this report. Run:
 * `npx tsx scripts/api-report.ts > api.txt`.
 */
import { join } from "node:path";
import ts from "typescript";

const root = new URL("..", import.meta.url).pathname;
const entries = [
  { name: "@act-root/act", file: "packages/act/src/index.ts" },
  { name: "@act-root/act/testing", file: "packages/act/src/testing/index.ts" },
  { name: "@act-root/act/internal", file: "packages/act/src/internal/index.ts" },
].filter((e) => ts.sys.fileExists(join(root, e.file)));

const program = ts.createProgram(
  entries.map((e) => join(root, e.file)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  }
);
const checker = program.getTypeChecker();
const flags = ts.TypeFormatFlags.NoTruncation;

const marker = (symbol: ts.Symbol) =>
  symbol
    .getJsDocTags(checker)
    .map((t) => t.name)
    .filter((n) => n === "stable" || n === "experimental" || n === "deprecated")
    .join(" ") || "-";

/** Each call signature of `type`, marked when its own TSDoc deprecates it (an overload, say). */
const signatures = (type: ts.Type, prefix: string) =>
  type
    .getCallSignatures()
    .map(
      (s) =>
        `${prefix}${checker.signatureToString(s, undefined, flags)}${s.getJsDocTags().some((t) => t.name === "deprecated") ? " [deprecated]" : ""}`
    );

function members(type: ts.Type): string[] {
  const lines: string[] = [];
  for (const p of checker.getPropertiesOfType(type)) {
    const decl = p.valueDeclaration ?? p.declarations?.[0];
    // Members of the language's own types (an array's, a map's) are not this API.
    if (!decl || decl.getSourceFile().fileName.includes("/node_modules/")) continue;
    const modifiers = ts.canHaveModifiers(decl) ? (ts.getModifiers(decl) ?? []) : [];
    if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword))
      continue;
    if (p.name.startsWith("#")) continue;
    const t = checker.getTypeOfSymbolAtLocation(p, decl);
    const calls = signatures(t, `    .${p.name}`);
    if (calls.length && (ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl))) lines.push(...calls);
    else {
      const deprecated = p.getJsDocTags(checker).some((tag) => tag.name === "deprecated") ? " [deprecated]" : "";
      lines.push(`    .${p.name}: ${checker.typeToString(t, undefined, flags)}${deprecated}`);
    }
  }
  return lines;
}

for (const entry of entries) {
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, entry.file))!)!;
  console.log(`## ${entry.name}\n`);
  const exports = checker.getExportsOfModule(module).sort((a, b) => a.name.localeCompare(b.name));
  for (const s of exports) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    const decl = target.declarations?.[0];
    if (!decl) continue;
    const mark = marker(target);
    if (target.flags & ts.SymbolFlags.Class) {
      const instance = checker.getDeclaredTypeOfSymbol(target);
      console.log(`class ${s.name}  [${mark}]`);
      for (const line of members(instance)) console.log(line);
    } else if (target.flags & ts.SymbolFlags.Function) {
      const t = checker.getTypeOfSymbolAtLocation(target, decl);
      console.log(`function ${s.name}  [${mark}]`);
      for (const line of signatures(t, `    ${s.name}`)) console.log(line);
    } else if (target.flags & ts.SymbolFlags.Variable) {
      const t = checker.getTypeOfSymbolAtLocation(target, decl);
      const calls = signatures(t, `    ${s.name}`);
      console.log(`const ${s.name}  [${mark}]`);
      if (calls.length) for (const line of calls) console.log(line);
    } else if (target.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) {
      const t = checker.getDeclaredTypeOfSymbol(target);
      console.log(`type ${s.name}  [${mark}]`);
      const calls = signatures(t, `    ${s.name}`);
      if (calls.length) for (const line of calls) console.log(line);
      else if (t.isUnion() || t.flags & ts.TypeFlags.StringLiteral || !(t.flags & ts.TypeFlags.Object))
        console.log(`    = ${checker.typeToString(t, undefined, flags)}`);
      else for (const line of members(t)) console.log(line);
    } else console.log(`${ts.SymbolFlags[target.flags] ?? "export"} ${s.name}  [${mark}]`);
  }
  console.log("");
}
