/**
 * Type-checks every ```ts block inside a TSDoc `@example` of the packages'
 * sources against the library, so the examples on the API pages cannot rot.
 *
 * Each example becomes its own module under `.cache/tsdoc-examples/`, after a
 * prelude that imports every export of the packages that the example neither
 * imports nor declares itself, and declares the few values examples may
 * assume (`app`, `actor`, `Counter`, ...: see `context`). Run:
 * `npm run test:examples`.
 *
 * It also fails when an export of a published entry point has no stability
 * marker in its TSDoc — `@stable` (kept through 1.x) or `@experimental` (may
 * change in a minor release) — which its API page shows as a badge.
 * `@act-root/act/internal` is left out: semantic versioning does not cover it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, ".cache/tsdoc-examples");
/** The entry points whose every export must say how stable it is. */
const marked = new Set([
  "@act-root/act",
  "@act-root/act/testing",
  "@act-root/act-pg",
  "@act-root/act-sqlite",
  "@act-root/act-otel",
  "@act-root/act-http",
  "@act-root/inspector",
]);
const packages = [
  { name: "@act-root/act", dir: "packages/act/src" },
  { name: "@act-root/act/testing", dir: "packages/act/src/testing" },
  { name: "@act-root/act/internal", dir: "packages/act/src/internal" },
  { name: "@act-root/act-pg", dir: "packages/act-pg/src" },
  { name: "@act-root/act-sqlite", dir: "packages/act-sqlite/src" },
  { name: "@act-root/act-otel", dir: "packages/act-otel/src" },
  { name: "@act-root/act-http", dir: "packages/act-http/src" },
  { name: "@act-root/inspector", dir: "packages/inspector/src" },
].filter((p) => existsSync(join(root, p.dir, "index.ts")));

/** Values and types examples may use without declaring them, one per line. */
const context = `
declare const Counter: State<{ count: number }, { Incremented: { by: number } }, { increment: { by: number } }>;
declare const Ticket: State<{ title: string; status: string; open: boolean }, { TicketOpened: { title: string }; Closed: {} }, { open: { title: string }; close: {} }>;
declare const app: Act<{ increment: { count: number }; close: { open: boolean } }, { Incremented: { by: number }; Closed: {} }, { increment: { by: number }; close: {} }>;
declare const actor: Actor;
declare const bot: Actor;
declare const target: Target;
declare const event: Committed<{ Opened: { title: string } }, "Opened">;
declare const server: { close(): void };
declare const map: Map<string, unknown>;
declare const onCommitted: (snapshots: unknown[]) => void;
declare const meta: EventMeta;
declare const granted: Lease;
declare class MemoryCache { set(k: string, v: unknown): void; dispose(): Promise<void> }
declare const tenants: Tenants<{ increment: { count: number } }, { Incremented: { by: number } }, { increment: { by: number } }>;
declare const connections: PostgresConnections;
type Cache = MemoryCache;
type Events = { Opened: { title: string }; TicketOpened: { title: string } };
type Actions = { assign: { agent: string } };
`
  .trim()
  .split("\n");

/** Every export of each package, split into values and types, from the compiler. */
function exportsOf() {
  const program = ts.createProgram(
    packages.map((p) => join(root, p.dir, "index.ts")),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
    }
  );
  const checker = program.getTypeChecker();
  const unmarked: string[] = [];
  const result = packages.map((p) => {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(join(root, p.dir, "index.ts"))!)!;
    const values: string[] = [];
    const types: string[] = [];
    for (const s of checker.getExportsOfModule(symbol)) {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(s.name);
      const tags = target.getJsDocTags(checker).map((t) => t.name);
      if (marked.has(p.name) && !tags.includes("stable") && !tags.includes("experimental"))
        unmarked.push(`${p.name}: ${s.name}`);
    }
    return { ...p, values, types };
  });
  if (unmarked.length) {
    console.error(
      `Exports without a stability marker (add @stable or @experimental to their TSDoc):\n${unmarked.join("\n")}`
    );
    process.exit(1);
  }
  return result;
}

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  );
}

/** The ```ts blocks of every @example in a file, with the line each starts on. */
function examples(file: string) {
  const found: Array<{ line: number; code: string }> = [];
  let inExample = false;
  let block: string[] | undefined;
  let start = 0;
  readFileSync(join(root, file), "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const text = raw.replace(/^\s*\*\s?/, "");
      if (!block && /^@\w+/.test(text)) inExample = text.startsWith("@example");
      if (raw.includes("*/")) inExample = false;
      if (!inExample) return;
      if (!block && /^```ts\s*$/.test(text)) {
        block = [];
        start = i + 2;
      } else if (block && /^```\s*$/.test(text)) {
        found.push({ line: start, code: block.join("\n") });
        block = undefined;
      } else if (block) block.push(text);
    });
  return found;
}

/** Names an example imports or declares at top level (so the prelude leaves them out). */
function ownNames(code: string): Set<string> {
  const names = new Set<string>();
  const source = ts.createSourceFile("x.ts", code, ts.ScriptTarget.ES2022, true);
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else
      for (const e of name.elements) {
        if (!ts.isOmittedExpression(e)) bind(e.name);
      }
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add(e.name.text);
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    } else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) bind(d.name);
    else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement)) &&
      statement.name
    )
      names.add(statement.name.text);
  }
  return names;
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const exported = exportsOf();
const where: Record<string, string> = {};
for (const pkg of exported) {
  // A file belongs to the innermost entry point's folder (src/testing is not checked twice as part of src).
  const nested = packages.filter((p) => p.dir.startsWith(`${pkg.dir}/`)).map((p) => `${p.dir}/`);
  for (const file of files(pkg.dir).filter((f) => !nested.some((dir) => f.startsWith(dir)))) {
    for (const { line, code } of examples(file)) {
      const own = ownNames(code);
      // In a store package's own examples, `store` is the store at hand.
      const storeClass = { "@act-root/act-pg": "PostgresStore", "@act-root/act-sqlite": "SqliteStore" }[pkg.name];
      const local = storeClass && !own.has("store") ? [`declare const store: ${storeClass};`] : [];
      if (local.length) own.add("store");
      const free = (names: string[]) => names.filter((n) => !own.has(n));
      const prelude = [
        own.has("z") ? "" : `import { z } from "zod";`,
        ...exported.flatMap((p) => [
          free(p.values).length ? `import { ${free(p.values).join(", ")} } from "${p.name}";` : "",
          free(p.types).length ? `import type { ${free(p.types).join(", ")} } from "${p.name}";` : "",
        ]),
        ...local,
        ...context.filter((line) => {
          const declared = line.match(/^(?:declare\s+)?(?:const|class|type)\s+(\w+)/)?.[1];
          return !declared || !own.has(declared);
        }),
      ];
      const name = `${relative(root, file).replace(/[/.-]/g, "_")}_${line}.ts`;
      writeFileSync(
        join(out, name),
        `${prelude.filter(Boolean).join("\n")}\n// ---- ${file}:${line}\n${code}\nexport {};\n`
      );
      where[name] = `${file}:${line}`;
    }
  }
}

writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({
    extends: "../../tsconfig.base.json",
    compilerOptions: {
      noEmit: true,
      module: "ESNext",
      moduleResolution: "Bundler",
      paths: Object.fromEntries(packages.map((p) => [p.name, [`../../${p.dir}/index.ts`]])),
    },
    include: ["*.ts"],
  })
);

const count = Object.keys(where).length;
try {
  execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", out], { encoding: "utf8", stdio: "pipe" });
  console.log(`TSDoc examples: all ${count} compile against the packages.`);
} catch (error) {
  const output = String((error as { stdout?: string }).stdout ?? error);
  const prelude = (name: string) =>
    readFileSync(join(out, name), "utf8")
      .split("\n")
      .findIndex((l) => l.startsWith("// ---- ")) + 1;
  const report = output.replace(/^(?:\S*\/)?(\S+?\.ts)\((\d+),(\d+)\)/gm, (_, name: string, l: string) =>
    where[name] ? `${where[name].replace(/:(\d+)$/, (_m, s) => `:${Number(s) + Number(l) - prelude(name) - 1}`)}` : name
  );
  console.error(`TSDoc examples that do not compile (file:line of the failing example line):\n${report}`);
  process.exit(1);
}
