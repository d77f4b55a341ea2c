/**
 * What a key typed on the calculator asks for: Enter means "=", Escape
 * means "C", and a printable character is passed on as typed — the
 * calculator's own `toKey` reads it ("*" or "x" for ×, "/" for ÷) and
 * ignores the rest once its code has loaded. Deciding this without that
 * code lets a key typed before it arrives be kept and applied after.
 *
 * Undefined for what the calculator leaves to the browser: shortcuts with
 * a modifier, Tab, arrows, Space, and Enter on a focused key (which presses
 * that key, not "=").
 */
export function typedKey(event: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  target: EventTarget;
}): string | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  const onButton = (event.target as Element).tagName === "BUTTON";
  if (event.key === "Enter") return onButton ? undefined : "=";
  if (event.key === "Escape") return "C";
  if (event.key.length === 1 && event.key !== " ") return event.key;
  return undefined;
}
