// Finds parameters the generated API reference shows without a description.
//
// typedoc-plugin-markdown renders a function's or method's parameters as a
// table. A parameter without an `@param` description gets a "-" cell, and
// when none of them has one the table has no Description column at all. A
// reader (or someone implementing the Store port) is then left with a name
// and a type. scripts/site.test.mjs runs this over docs-api after a build and
// fails naming every such page and parameter.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The cells of a Markdown table row ("| a | b \| c |" → ["a", "b \| c"]). */
function cells(row) {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/**
 * The parameters of one generated page that have no description, as
 * `{ member, parameter }` — `member` is the heading of the signature the
 * table belongs to (e.g. "commit()", or the page title for a function page).
 */
export function undescribedParameters(markdown) {
  const found = [];
  const lines = markdown.split("\n");
  let member = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,3} (.+)$/.exec(lines[i]);
    if (heading) member = heading[1].replace(/\\(.)/g, "$1").trim();
    if (!/^\|\s*Parameter\s*\|/.test(lines[i])) continue;
    const header = cells(lines[i]);
    const description = header.indexOf("Description");
    for (i += 2; i < lines.length && lines[i].startsWith("|"); i++) {
      const row = cells(lines[i]);
      const parameter = row[0].replace(/`/g, "");
      const text = description < 0 ? "" : (row[description] ?? "");
      if (text === "" || text === "-") found.push({ member, parameter });
    }
    i--; // the line that ended the table may be the next heading
  }
  return found;
}

/** Every .md/.mdx file under `dir`. */
function pages(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pages(path);
    return /\.mdx?$/.test(entry.name) ? [path] : [];
  });
}

/** "page: member › parameter" for every undescribed parameter under `dir`. */
export function undescribedParametersIn(dir) {
  return pages(dir).flatMap((file) =>
    undescribedParameters(readFileSync(file, "utf8")).map(
      ({ member, parameter }) => `${relative(dir, file)}: ${member} › ${parameter}`
    )
  );
}
