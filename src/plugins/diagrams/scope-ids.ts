/**
 * Gives every id inside a rendered SVG its root's id as a prefix.
 *
 * Mermaid names some inner elements with fixed ids (a sequence diagram's
 * arrow heads are all "arrowhead"). Each diagram is on its page twice, once
 * per colour mode, with the hidden copy under `display: none`; a reference
 * like `url(#arrowhead)` resolves to the first element with that id in the
 * document, so without prefixes the visible copy would borrow arrow heads
 * from the hidden one and draw none.
 */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `svg` with each inner id, and every reference to it, prefixed by `rootId-`. */
export function scopeIds(svg: string, rootId: string): string {
  const ids = new Set([...svg.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!).filter((id) => id !== rootId));
  let out = svg;
  // Longest first, so an id that is a prefix of another cannot corrupt it.
  for (const id of [...ids].sort((a, b) => b.length - a.length)) {
    const scoped = id.startsWith(`${rootId}-`) || id.startsWith(`${rootId}_`) ? id : `${rootId}-${id}`;
    if (scoped === id) continue;
    out = out
      .replace(new RegExp(`(\\sid=")${escapeRegExp(id)}"`, "g"), `$1${scoped}"`)
      .replace(new RegExp(`#${escapeRegExp(id)}(?![\\w-])`, "g"), `#${scoped}`)
      .replace(new RegExp(`(aria-(?:labelledby|describedby)=")${escapeRegExp(id)}"`, "g"), `$1${scoped}"`);
  }
  return out;
}
