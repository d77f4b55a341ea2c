// The docs snippets' node_modules, as a reader's would be: the snippet check
// (check-snippets.mjs) type-checks and runs the pages' code blocks in a folder
// outside the repository whose node_modules this module fills with
//
// - the published `@act-root/*` packages, from the tarballs `npm run
//   pack:local` makes (what `npm install` of those tarballs unpacks: only the
//   files the package ships, its `exports` as written), and
// - the third-party packages the blocks import and the published packages
//   depend on, as links to the repository's node_modules: the versions of the
//   lockfile, without a second download.
//
// Outside the repository, nothing else resolves: not the workspace links in
// the root node_modules (the private example apps among them), not the
// packages' sources. A block that imports a private or unknown `@act-root/*`
// package would fail for a reader at `npm install`; `importProblems` names it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";

/** `from "x"`, `import "x"`, `import("x")`, `export … from "x"`: the specifier of each. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(["'])([^"'\s]+)\1/g;

/**
 * The packages a piece of code imports, with the 0-based line of each import:
 * relative paths and Node's built-in modules left out.
 *
 * @param {string} code
 * @returns {{ line: number, specifier: string, name: string }[]}
 */
export function packageImports(code) {
  return code.split("\n").flatMap((text, line) =>
    [...text.matchAll(SPECIFIER)].flatMap((match) => {
      const specifier = match[2];
      if (/^[./]/.test(specifier) || isBuiltin(specifier)) return [];
      const parts = specifier.split("/");
      const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
      return [{ line, specifier, name }];
    })
  );
}

/**
 * What a block imports that a reader could not install, as `page:line`
 * messages: an `@act-root/*` package that is not published (a private
 * example app, a name that does not exist), or a third-party package the
 * repository's lockfile does not hold (so the check cannot install it at a
 * known version).
 *
 * @param {{ page: string, line: number, code: string, prelude: string }} block
 * @param {{ published: string[], rootModules: string }} where
 * @returns {string[]}
 */
export function importProblems({ page, line, code, prelude }, { published, rootModules }) {
  const found = [
    ...packageImports(prelude).map((i) => ({ ...i, at: `${page}:${line} (in its check: comment)` })),
    ...packageImports(code).map((i) => ({ ...i, at: `${page}:${line + i.line}` })),
  ];
  return found.flatMap(({ name, specifier, at }) => {
    if (name.startsWith("@act-root/"))
      return published.includes(name)
        ? []
        : [
            `${at} imports ${specifier}, which is not published; a reader cannot install it (the published packages: ${published.join(", ")}). Show the code the page needs on the page itself.`,
          ];
    return existsSync(join(rootModules, name, "package.json"))
      ? []
      : [
          `${at} imports ${specifier}, which the repository's lockfile does not hold: add ${name} to the root package.json's devDependencies, so the check installs the version a reader would get`,
        ];
  });
}

/** The `@types/…` package of `name`, as DefinitelyTyped names it (`@scope/pkg` → `@types/scope__pkg`). */
const typesOf = (name) => `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;

/**
 * Fills `modules` (a node_modules folder) with the published packages
 * unpacked from `tarballs` (name → .tgz path) and links to `rootModules` for
 * `thirdParty` (the packages the blocks import), every dependency and peer
 * the published packages name, `@types/node` and `tsx` (the setup the
 * getting-started guide has a reader install), and the `@types/…` package
 * of each, where the lockfile has one. Throws with what to do when a tarball
 * lacks its entry point (the packages were not built).
 *
 * @param {string} modules
 * @param {{ tarballs: Map<string, string>, thirdParty: Iterable<string>, rootModules: string }} what
 */
export function installForReader(modules, { tarballs, thirdParty, rootModules }) {
  const linked = new Set(["@types/node", "tsx", ...thirdParty]);
  for (const [name, tarball] of tarballs) {
    const target = join(modules, name);
    mkdirSync(target, { recursive: true });
    // As npm unpacks it: the tarball's `package/` folder is the package.
    const untar = spawnSync("tar", ["xzf", tarball, "-C", target, "--strip-components=1"], { encoding: "utf8" });
    if (untar.status !== 0) throw new Error(`unpacking ${tarball} failed: ${untar.stderr}`);
    const manifest = JSON.parse(readFileSync(join(target, "package.json"), "utf8"));
    const entry = manifest.exports?.["."]?.default ?? manifest.main;
    if (entry && !existsSync(join(target, entry)))
      throw new Error(`the tarball of ${name} has no ${entry}: run \`npm run build:packages\` first`);
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"])
      for (const dependency of Object.keys(manifest[field] ?? {}))
        if (!tarballs.has(dependency)) linked.add(dependency);
  }
  for (const name of [...linked]) linked.add(typesOf(name));
  for (const name of linked) {
    const source = join(rootModules, name);
    const link = join(modules, name);
    // An optional peer the repository does not install, or a package without types of its own: skipped.
    if (!existsSync(source) || existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(source, link, "dir");
  }
}
