// TypeDoc plugin loaded by docusaurus-plugin-typedoc (see docusaurus.config.ts).
//
// typedoc-plugin-markdown escapes Markdown characters in headings
// ("# Function: build\_tracer()"). The page renders fine, but Docusaurus takes
// the <title> and search/social metadata from the raw heading, so readers
// saw "build\_tracer" in tabs and search results. This gives every generated
// page front matter: the unescaped title, and the symbol's summary as the
// page description.
import { Comment } from "typedoc";

const MARKDOWN_ESCAPE = /\\([\\`*_{}[\]()#+\-.!<>|~])/g;

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.renderer.on("endPage", (page) => {
    if (!page.contents) return;
    const heading = /^# (.+)$/m.exec(page.contents);
    const fields = {};
    if (heading) fields.title = heading[1].replace(MARKDOWN_ESCAPE, "$1");
    const summary = page.model?.comment?.summary;
    if (summary?.length) {
      const text = Comment.combineDisplayParts(summary)
        .replace(/```[\s\S]*?```/g, "")
        .replace(/[`*_]/g, "")
        .replace(/\s+/g, " ")
        .trim();
      if (text) fields.description = text.length > 160 ? `${text.slice(0, 157)}...` : text;
    }
    const yaml = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
    if (yaml.length) page.contents = `---\n${yaml.join("\n")}\n---\n\n${page.contents}`;
  });
}
