// `node scripts/bundle-report.mjs` — what the main bundle is made of.
//
// Build with the module list first:
//   ACT_BUNDLE_STATS=.cache/bundle-stats.json node scripts/site-build.mjs
// then this prints, for build/assets/js/main.*.js, every module's share of
// the minified file (measured in the file itself, not estimated from the
// sources), grouped by package, largest first. A module the bundler merged
// with others ("+ N modules") is listed under its first module's package.
//
// With --page PATH[,PATH…] (e.g. --page /act-root/docs/intro) it prints
// instead what each page loads on its first visit (scripts/page-bundles.mjs):
// every script with its size, the routes' chunk names that need it, and its
// largest modules (their size before minification, from the module list).
//
// Options: --stats FILE (default .cache/bundle-stats.json), --site-dir DIR
//          (default build), --top N (default 25), --page PATHS.
import { readdirSync, readFileSync } from "node:fs";
import { pageScripts, readBuild } from "./page-bundles.mjs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const stats = JSON.parse(readFileSync(option("stats", join(root, ".cache", "bundle-stats.json")), "utf8"));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const pagesOption = option("page");
if (pagesOption) {
  const build = readBuild(option("site-dir", join(root, "build")));
  const chunkOf = new Map(stats.chunks.flatMap((c) => c.files.map((f) => [f.replace(/^.*\//, ""), c])));
  const modulesOf = new Map();
  for (const m of stats.modules.filter((m) => m.type === "module"))
    for (const id of m.chunks ?? []) modulesOf.set(String(id), [...(modulesOf.get(String(id)) ?? []), m]);
  for (const path of pagesOption.split(",")) {
    const scripts = pageScripts(build, path.trim()).sort((a, b) => b.bytes - a.bytes);
    console.log(
      `${path}: ${kb(scripts.reduce((n, s) => n + s.bytes, 0))} of JavaScript in ${scripts.length} files on the first visit`
    );
    for (const script of scripts) {
      console.log(`${kb(script.bytes).padStart(9)}  ${script.file}  (${script.why.join("; ")})`);
      const chunk = chunkOf.get(script.file);
      const modules = (chunk ? (modulesOf.get(String(chunk.id)) ?? []) : []).sort((a, b) => b.size - a.size);
      for (const m of modules.slice(0, 4))
        console.log(`             ${kb(m.size).padStart(9)} source  ${m.name.replace(/^\.\/node_modules\//, "")}`);
    }
    console.log("");
  }
  process.exit(0);
}
const js = join(option("site-dir", join(root, "build")), "assets", "js");
const file = readdirSync(js).find((name) => /^main\.[0-9a-f]+\.js$/.test(name));
if (!file) throw new Error(`no main bundle in ${js}`);
const source = readFileSync(join(js, file), "utf8");

/** Module id → name, from the bundler's module list. */
const names = new Map(stats.modules.filter((m) => m.id != null).map((m) => [String(m.id), m.name]));

// In the minified chunk each module is a method `<id>(e,t,n){…}` of one
// object literal; a module runs from its header to the next one's.
const headers = [...source.matchAll(/[,{](\d+)\((?:[a-zA-Z_$][\w$]*(?:,[a-zA-Z_$][\w$]*){0,2})?\)\{/g)].filter((m) =>
  names.has(m[1])
);
const modules = headers.map((m, i) => ({
  id: m[1],
  name: names.get(m[1]),
  bytes: (headers[i + 1]?.index ?? source.length) - m.index,
}));

const packageOf = (name) => {
  const path = name.replace(/ \+ \d+ modules?$/, "");
  const inNodeModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inNodeModules) return inNodeModules[1];
  if (path.startsWith("./.docusaurus/")) return `generated: ${path.slice("./.docusaurus/".length)}`;
  return `site: ${path.replace(/^\.\//, "")}`;
};
const groups = new Map();
for (const m of modules) {
  const key = packageOf(m.name);
  const group = groups.get(key) ?? { bytes: 0, modules: [] };
  group.bytes += m.bytes;
  group.modules.push(m);
  groups.set(key, group);
}

const accounted = modules.reduce((n, m) => n + m.bytes, 0);
console.log(
  `${file}: ${kb(source.length)} minified, ${modules.length} modules (${kb(source.length - accounted)} of wrapper and unattributed code)\n`
);
const top = Number(option("top", "25"));
for (const [key, group] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  const biggest = group.modules.sort((a, b) => b.bytes - a.bytes)[0];
  console.log(
    `${kb(group.bytes).padStart(9)}  ${(`${((group.bytes / source.length) * 100).toFixed(1)}%`).padStart(6)}  ${key}` +
      (group.modules.length > 1
        ? `  (${group.modules.length} modules; largest ${biggest.name.replace(/^\.\/node_modules\//, "")})`
        : "")
  );
}
