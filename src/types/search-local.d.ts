// The parts of the local search plugin's browser code that the search box's
// stand-in (src/theme/SearchBar) reuses, so its shortcut and hint are the
// plugin's own. The plugin ships these files without type declarations.
declare module "@easyops-cn/docusaurus-search-local/dist/client/client/utils/proxiedGenerated" {
  /** Whether the keyboard shortcut is on, and whether the box shows its hint. */
  export const searchBarShortcut: boolean;
  export const searchBarShortcutHint: boolean;
  /** The shortcut, such as "mod+k". */
  export const searchBarShortcutKeymap: string;
}

declare module "@easyops-cn/docusaurus-search-local/dist/client/client/utils/keymap" {
  export interface ParsedKeymap {
    key: string;
    ctrl: boolean;
    alt: boolean;
    shift: boolean;
    meta: boolean;
  }
  export function parseKeymap(keymap: string): ParsedKeymap;
  export function matchesKeymap(event: KeyboardEvent, keymap: ParsedKeymap): boolean;
  export function getKeymapHints(keymap: string, isMac: boolean): string[];
}

declare module "@easyops-cn/docusaurus-search-local/dist/client/client/utils/platform" {
  export function isMacPlatform(): boolean;
}
