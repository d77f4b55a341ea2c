// Which fields of the site config a piece of browser code reads, for
// scripts/plugins.test.mjs (src/plugins/lean-site-config drops the others
// from the browser's copy). The source is parsed with TypeScript's parser
// (JavaScript, JSX and TypeScript alike), and the ways Docusaurus' client
// code and ours reach the config are followed:
//
//   siteConfig.a.b                        → "a.b" (optional chaining too)
//   const { a, b: { c } } = siteConfig    → "a", "b.c" (also `= x().siteConfig`)
//   const { siteConfig: { a } } = useDocusaurusContext()   → "a"
//   const { siteConfig: alias } = …       → alias is followed as well
//   import siteConfig from "@generated/docusaurus.config" (any name)
//
// Every other use of the object (passed whole, spread, indexed, a rest
// element, a computed key) is reported as opaque, with its line, since what
// is read there cannot be told from the code.
import ts from "typescript";

const GENERATED = "@generated/docusaurus.config";
const CONFIG_KEY = "siteConfig";

const parse = (source) => ts.createSourceFile("module.tsx", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);

/** Every node of a parsed source, depth first. */
function* nodes(node) {
  yield node;
  for (const child of node.getChildren()) yield* nodes(child);
}

/** The identifiers a source uses (comments and strings are not identifiers). */
export function identifierNames(source) {
  return new Set([...nodes(parse(source))].filter(ts.isIdentifier).map((id) => id.text));
}

/**
 * The paths an object binding pattern (`{ a, b: { c }, d: alias }`) reads,
 * with `prefix` before each; opaque parts (rest elements, computed keys)
 * are returned apart.
 */
function patternPaths(pattern, prefix = "") {
  const paths = [];
  const opaque = [];
  for (const element of pattern.elements) {
    const text = element.getText();
    if (element.dotDotDotToken) {
      opaque.push(`${prefix || "the object"}: a rest element (${text})`);
      continue;
    }
    const key = element.propertyName ?? element.name;
    if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) {
      opaque.push(`${prefix || "the object"}: a computed key (${text})`);
      continue;
    }
    if (ts.isObjectBindingPattern(element.name)) {
      const inner = patternPaths(element.name, `${prefix}${key.text}.`);
      paths.push(...inner.paths);
      opaque.push(...inner.opaque);
    } else paths.push(`${prefix}${key.text}`);
  }
  return { paths, opaque };
}

/**
 * What a module's source reads of the site config: `paths` ("a", "a.b"…)
 * and `opaque` uses ("line N: …").
 */
export function siteConfigReads(source) {
  const file = parse(source);
  const all = [...nodes(file)];
  const names = new Set([CONFIG_KEY]);
  for (const node of all)
    if (ts.isImportDeclaration(node) && node.moduleSpecifier.text === GENERATED && node.importClause?.name)
      names.add(node.importClause.name.text);
  const paths = new Set();
  const opaque = [];
  const where = (node) => `line ${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const around = (node) => source.slice(Math.max(0, node.getStart() - 30), node.getEnd() + 30).replace(/\s+/g, " ");
  const readPattern = (node, pattern) => {
    const read = patternPaths(pattern);
    for (const path of read.paths) paths.add(path);
    opaque.push(...read.opaque.map((why) => `${where(node)}: ${why}`));
  };

  // An alias (`{ siteConfig: c }`) found in one pass is followed in the next.
  const seen = new Set();
  for (let pass = 0; pass < 3; pass++) {
    for (const node of all) {
      if (!ts.isIdentifier(node) || !names.has(node.text) || seen.has(node)) continue;
      const parent = node.parent;
      // `x.siteConfig` is the config; a `.siteConfig` of any other name is not.
      const isMember = ts.isPropertyAccessExpression(parent) && parent.name === node;
      if (isMember && node.text !== CONFIG_KEY) continue;
      seen.add(node);
      const config = isMember ? parent : node;
      const holder = config.parent;

      // A name being declared (the variable, parameter or import that binds
      // the config, a property key): reads are found through its uses.
      if (parent.name === node && !isMember && !ts.isShorthandPropertyAssignment(parent)) continue;
      // siteConfig.a.b / siteConfig?.a
      if (ts.isPropertyAccessExpression(holder) && holder.expression === config) {
        const chain = [];
        for (let at = holder; ts.isPropertyAccessExpression(at) && at.expression; at = at.parent) {
          chain.push(at.name.text);
          if (!ts.isPropertyAccessExpression(at.parent) || at.parent.expression !== at) break;
        }
        paths.add(chain.join("."));
        continue;
      }
      // const { a, b } = [x().]siteConfig / const alias = siteConfig
      if (ts.isVariableDeclaration(holder) && holder.initializer === config) {
        if (ts.isObjectBindingPattern(holder.name)) readPattern(config, holder.name);
        else if (ts.isIdentifier(holder.name)) names.add(holder.name.text);
        else opaque.push(`${where(config)}: ${around(config)}`);
        continue;
      }
      // { siteConfig: { a } } = … / { siteConfig: alias } = …
      if (ts.isBindingElement(parent) && parent.propertyName === node) {
        if (ts.isObjectBindingPattern(parent.name)) readPattern(node, parent.name);
        else if (ts.isIdentifier(parent.name)) names.add(parent.name.text);
        else opaque.push(`${where(node)}: ${around(node)}`);
        continue;
      }
      opaque.push(`${where(config)}: ${around(config)}`);
    }
  }
  return { paths: [...paths].sort(), opaque };
}

/** Whether reading `read` reads (part of) the dropped path `dropped`, or the object holding it. */
export function overlaps(read, dropped) {
  return read === dropped || read.startsWith(`${dropped}.`) || dropped.startsWith(`${read}.`);
}
