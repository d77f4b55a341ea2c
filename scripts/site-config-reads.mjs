// Which fields of the site config a piece of browser code reads, for
// scripts/plugins.test.mjs (src/plugins/lean-site-config drops the others
// from the browser's copy). A reading of the source text, not a parser: it
// follows the ways Docusaurus' client code and ours reach the config —
//
//   siteConfig.a.b                        → "a.b" (optional chaining too)
//   const { a, b: { c } } = siteConfig    → "a", "b.c" (also `= x().siteConfig`)
//   const { siteConfig: { a } } = useDocusaurusContext()   → "a"
//   const { siteConfig: alias } = …       → alias is followed as well
//   import siteConfig from "@generated/docusaurus.config" (any name)
//
// and reports every other use of the object (passed whole, spread, indexed,
// a rest element) as opaque, with its line, since what is read there cannot
// be told from the text.

const GENERATED = /import\s+([\w$]+)\s+from\s+["']@generated\/docusaurus\.config["']/g;
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** The source without comments (a `//` right after `:`, a quote or a backslash is kept: URLs, strings). */
export function stripComments(source) {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/[^\n]*/g, (_all, before) => before);
}

/** Index of the bracket closing the one opened at `open`. */
function closing(text, open) {
  const pairs = { "{": "}", "[": "]", "(": ")" };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i;
    }
  }
  return -1;
}

/** Index of the bracket opening the one that closes at `close`. */
function opening(text, close) {
  const pairs = { "}": "{", "]": "[", ")": "(" };
  const stack = [];
  for (let i = close; i >= 0; i--) {
    const c = text[i];
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i;
    }
  }
  return -1;
}

/** Splits `a, b: { c, d }, ...e` at its top-level commas. */
function entries(body) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if ("{[(".includes(c)) depth++;
    else if ("}])".includes(c)) depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out.map((entry) => entry.trim()).filter(Boolean);
}

/**
 * The paths an object pattern (`{ a, b: { c }, d: alias }`, braces
 * included) reads, with `prefix` before each; aliases and opaque parts
 * (rest elements, computed keys) are returned apart.
 */
export function patternPaths(pattern, prefix = "") {
  const paths = [];
  const opaque = [];
  for (const entry of entries(pattern.trim().slice(1, -1))) {
    if (entry.startsWith("...")) {
      opaque.push(`${prefix || "the object"}: a rest element (${entry})`);
      continue;
    }
    const colon = /^(["']?)([\w$]+)\1\s*:\s*([\s\S]*)$/.exec(entry);
    const key = colon ? colon[2] : /^([\w$]+)/.exec(entry)?.[1];
    if (!key) {
      opaque.push(`${prefix || "the object"}: a computed key (${entry})`);
      continue;
    }
    const value = colon?.[3].replace(/\s*=[\s\S]*$/, "").trim();
    if (value?.startsWith("{")) {
      const inner = patternPaths(value, `${prefix}${key}.`);
      paths.push(...inner.paths);
      opaque.push(...inner.opaque);
    } else paths.push(`${prefix}${key}`);
  }
  return { paths, opaque };
}

/**
 * What a module's source reads of the site config: `paths` ("a", "a.b"…)
 * and `opaque` uses ("line N: …").
 */
export function siteConfigReads(source) {
  const text = stripComments(source);
  const names = new Set(["siteConfig"]);
  for (const match of text.matchAll(GENERATED)) names.add(match[1]);
  const paths = new Set();
  const opaque = [];
  const lineOf = (index) => text.slice(0, index).split("\n").length;
  const seen = new Set();

  // An alias (`{ siteConfig: c }`) found in one pass is followed in the next.
  for (let pass = 0; pass < 3; pass++) {
    for (const name of [...names]) {
      const re = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g");
      for (const match of text.matchAll(re)) {
        const at = match.index;
        if (seen.has(at)) continue;
        seen.add(at);
        const before = text.slice(0, at);
        const after = text.slice(at + name.length);
        const where = `line ${lineOf(at)}`;
        // siteConfig.a.b / siteConfig?.a
        const member = /^(?:\s*\??\.\s*[A-Za-z_$][\w$]*)+/.exec(after);
        if (member) {
          paths.add(
            member[0]
              .split(".")
              .slice(1)
              .map((part) => part.replace(/\?$/, "").trim())
              .join(".")
          );
          continue;
        }
        // import siteConfig from "@generated/docusaurus.config"
        if (/import\s+$/.test(before) && /^\s+from\s+["']@generated\/docusaurus\.config["']/.test(after)) continue;
        // const { a, b } = [x().]siteConfig
        const subject = /\}\s*=\s*(?:[\w$]+(?:\(\))?\s*\??\.\s*)*$/.exec(before);
        if (subject) {
          const close = before.lastIndexOf("}");
          const open = opening(text, close);
          if (open < 0) opaque.push(`${where}: a destructuring the reading cannot parse`);
          else {
            const read = patternPaths(text.slice(open, close + 1));
            for (const path of read.paths) paths.add(path);
            opaque.push(...read.opaque.map((why) => `${where}: ${why}`));
          }
          continue;
        }
        // { siteConfig: { a } } = … / { siteConfig: alias } = …
        const keyed = /^\s*:\s*/.exec(after);
        if (keyed) {
          const rest = after.slice(keyed[0].length);
          if (rest.startsWith("{")) {
            const read = patternPaths(rest.slice(0, closing(rest, 0) + 1));
            for (const path of read.paths) paths.add(path);
            opaque.push(...read.opaque.map((why) => `${where}: ${why}`));
          } else {
            const alias = /^[\w$]+/.exec(rest)?.[0];
            if (alias && IDENT.test(alias)) names.add(alias);
            else opaque.push(`${where}: siteConfig: ${rest.slice(0, 30)}`);
          }
          continue;
        }
        // const siteConfig = … / let siteConfig; (a binding: its reads are the members above)
        if (/(?:const|let|var)\s+$/.test(before)) continue;
        // { siteConfig } or { siteConfig, i18n } in a destructuring pattern
        // (the braces followed by `=`, or ending a parameter list)
        if (!/\.\.\.\s*$/.test(before) && /^\s*[,}]/.test(after)) {
          const open = enclosingBrace(text, at);
          const close = open >= 0 ? closing(text, open) : -1;
          const next = close >= 0 ? text.slice(close + 1) : "";
          if (/^\s*(?:=(?![=>])|(?::\s*[\w$<>[\], ]+)?\)\s*(?:\{|=>|:))/.test(next)) continue;
        }
        opaque.push(`${where}: ${text.slice(Math.max(0, at - 30), at + name.length + 30).replace(/\s+/g, " ")}`);
      }
    }
  }
  return { paths: [...paths].sort(), opaque };
}

/** The index of the `{` whose braces enclose `at`, or -1. */
function enclosingBrace(text, at) {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (text[i] === "}") depth++;
    else if (text[i] === "{") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Whether reading `read` reads (part of) the dropped path `dropped`, or the object holding it. */
export function overlaps(read, dropped) {
  return read === dropped || read.startsWith(`${dropped}.`) || dropped.startsWith(`${read}.`);
}
