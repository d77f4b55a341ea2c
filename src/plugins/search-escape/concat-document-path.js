// Escaping stand-in for @easyops-cn/docusaurus-search-local's
// utils/concatDocumentPath, used only by its navbar suggestions, which put the
// joined path into innerHTML. Page titles and headings are text: an API title
// such as "Type Alias: Snapshot<S, E>" must read as written, and a heading
// with markup must never become elements (or run script).

/** Text as HTML that shows exactly that text. */
export function escapeHtml(text) {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#039;");
}

/** "Docs › Concepts › State management", each part escaped. */
export function concatDocumentPath(pathItems) {
  return pathItems.map(escapeHtml).join(" › ");
}
