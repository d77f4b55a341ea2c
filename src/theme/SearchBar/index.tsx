// Wrapped: the search bar's code loads when the reader reaches for the box, not with every page; until then a stand-in with the same markup holds its place and hands over focus and typed text.
import {
  type ComponentType,
  type ReactNode,
  type RefObject,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import clsx from "clsx";
import { useLocation } from "@docusaurus/router";
import { translate } from "@docusaurus/Translate";
import useIsBrowser from "@docusaurus/useIsBrowser";
import { loadOnce } from "../../client/load-once";
import type { WrapperProps } from "@docusaurus/types";
import type SearchBarType from "@theme/SearchBar";
import {
  searchBarShortcut,
  searchBarShortcutHint,
  searchBarShortcutKeymap,
} from "@easyops-cn/docusaurus-search-local/dist/client/client/utils/proxiedGenerated";
import {
  getKeymapHints,
  matchesKeymap,
  parseKeymap,
} from "@easyops-cn/docusaurus-search-local/dist/client/client/utils/keymap";
import { isMacPlatform } from "@easyops-cn/docusaurus-search-local/dist/client/client/utils/platform";
// The plugin's own style sheets: the stand-in gets the very class names the
// real bar uses, so it looks and measures the same.
import styles from "@easyops-cn/docusaurus-search-local/dist/client/client/theme/SearchBar/SearchBar.module.css";
import ringStyles from "@easyops-cn/docusaurus-search-local/dist/client/client/theme/LoadingRing/LoadingRing.module.css";

type Props = WrapperProps<typeof SearchBarType>;
type Bar = ComponentType<Props>;

/** The query parameter with which the real bar marks search terms in the article. */
const HIGHLIGHT_PARAMETER = "_highlight";

// Loaded once per visit: a navbar mounted anew after a move inside the site
// gets the real bar straight away.
const loadBar = loadOnce(() =>
  import(/* webpackChunkName: "search-bar" */ "@theme-original/SearchBar").then(
    (module: { default: Bar }) => module.default
  )
);

/** What the reader had done in the stand-in when the real bar replaced it. */
interface Handoff {
  value: string;
  focused: boolean;
  selection: [number | null, number | null];
  hovered: boolean;
}

export default function SearchBarWrapper(props: Props): ReactNode {
  const [Real, setReal] = useState<Bar | null>(() => loadBar.current() ?? null);
  const [fetching, setFetching] = useState(false);
  const [failed, setFailed] = useState(false);
  // The stand-in fills these as it goes; the real bar's first layout effect
  // reads them (below).
  const handoff = useRef<Handoff | null>(null);
  const slot = useRef<HTMLElement | null>(null);

  const want = useCallback(() => {
    setFetching(true);
    loadBar().then(
      (bar) => {
        setFailed(false);
        setReal(() => bar);
      },
      () => {
        setFailed(true);
        setFetching(false);
      }
    );
  }, []);

  // An address with the highlight parameter comes from a search hit: the
  // real bar marks its terms in the article as soon as the page shows. A
  // navbar mounted anew (another kind of page) while the code is on its way
  // waits for it too.
  const { search } = useLocation();
  useEffect(() => {
    if (!Real && (loadBar.started() || new URLSearchParams(search).has(HIGHLIGHT_PARAMETER))) want();
  }, [Real, search, want]);

  // Before the next paint, the real input takes over what the reader did in
  // the stand-in: focus, caret, typed text (as an input event, so the bar's
  // own change handler records it and searches it once its index is in), and
  // a pointer resting on the box (the bar starts fetching its index on
  // pointer entry).
  useLayoutEffect(() => {
    const state = handoff.current;
    const input = slot.current?.querySelector<HTMLInputElement>("input.navbar__search-input");
    if (!Real || !state || !input) return;
    handoff.current = null;
    if (state.focused) input.focus();
    if (state.value) {
      // Through the prototype's setter: React tracks values set through the
      // element's own property and would not take the event for a change.
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, state.value);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }
    if (state.focused) input.setSelectionRange(...state.selection);
    if (state.hovered) input.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
  }, [Real]);

  if (Real) return <Real {...props} />;
  return <StandIn onWant={want} fetching={fetching} failed={failed} handoff={handoff} slot={slot} />;
}

interface StandInProps {
  onWant: () => void;
  fetching: boolean;
  failed: boolean;
  handoff: RefObject<Handoff | null>;
  slot: RefObject<HTMLElement | null>;
}

/**
 * The search box as the real bar renders it (the markup of the plugin's
 * SearchBar.jsx with its loading ring and shortcut hint), asking for the real
 * bar at the first sign the reader wants it.
 */
function StandIn({ onWant, fetching, failed, handoff, slot }: StandInProps): ReactNode {
  const isBrowser = useIsBrowser();
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState("");
  const [focused, setFocused] = useState(false);

  useLayoutEffect(() => {
    const container = box.current;
    const field = input.current;
    if (!container || !field) return;
    slot.current = container.parentElement;
    // Text typed before the page was live is in the box already.
    if (field.value) setValue(field.value);
    // Runs while the stand-in is still in the page, just before the real bar
    // replaces it.
    return () => {
      handoff.current = {
        value: field.value,
        focused: document.activeElement === field,
        selection: [field.selectionStart, field.selectionEnd],
        hovered: container.matches(":hover"),
      };
    };
  }, [handoff, slot]);

  // The plugin's shortcut (Ctrl/⌘+K here) focuses the box, which loads the
  // real bar; once that is in, its own listener takes over. An early press,
  // held by the page loader until the page is live, lands here.
  useEffect(() => {
    if (!searchBarShortcut || !searchBarShortcutKeymap) return;
    const keymap = parseKeymap(searchBarShortcutKeymap);
    const onKey = (event: KeyboardEvent) => {
      if (!matchesKeymap(event, keymap)) return;
      event.preventDefault();
      input.current?.focus();
      onWant();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onWant]);

  // A focused box (the loader focuses it again once the page is live, when
  // the reader focused it before) asks for the real bar.
  useEffect(() => {
    if (document.activeElement === input.current) onWant();
  }, [onWant]);

  const label = translate({
    id: "theme.SearchBar.label",
    message: "Search",
  });
  const failure = failed
    ? translate({
        id: "theme.SearchBar.standIn.failed",
        message: "Search could not be loaded. Click or type in the box to try again.",
      })
    : "";
  const isMac = isBrowser ? isMacPlatform() : false;

  return (
    <div
      ref={box}
      className={clsx("navbar__search", styles.searchBarContainer, {
        [styles.searchIndexLoading]: fetching && value !== "",
        [styles.focused]: focused,
      })}
      dir="ltr"
      data-search-stand-in=""
      onPointerEnter={onWant}
      onTouchStart={onWant}
    >
      <svg aria-hidden="true" className={styles.searchIcon} focusable="false" viewBox="0 0 16 16">
        <path
          fill="currentColor"
          d="M6.02945 10.20327a4.17382 4.17382 0 1 1 4.17382-4.17382 4.15609 4.15609 0 0 1-4.17382 4.17382Zm9.69195 4.2199-4.8225-4.82338A5.88021 5.88021 0 0 0 12.058 6.02856 6.00467 6.00467 0 1 0 9.59979 10.8989l4.82338 4.82338a.89729.89729 0 0 0 1.29912 0 .89749.89749 0 0 0-.00087-1.29909Z"
        />
      </svg>
      <input
        ref={input}
        placeholder={label}
        aria-label="Search"
        className={`navbar__search-input ${styles.searchInput}`}
        title={failure || undefined}
        value={value}
        onChange={(event) => {
          setValue(event.target.value);
          onWant();
        }}
        onFocus={() => {
          setFocused(true);
          onWant();
        }}
        onBlur={() => setFocused(false)}
        onPointerDown={onWant}
      />
      <div className={clsx(ringStyles.loadingRing, styles.searchBarLoadingRing)}>
        <div />
        <div />
        <div />
        <div />
      </div>
      {searchBarShortcut &&
        searchBarShortcutHint &&
        (value !== "" ? (
          <button
            type="button"
            className={styles.searchClearButton}
            aria-label={translate({ id: "theme.SearchBar.standIn.clear", message: "Clear search" })}
            onClick={() => setValue("")}
          >
            ✕
          </button>
        ) : (
          isBrowser &&
          searchBarShortcutKeymap && (
            <div className={styles.searchHintContainer}>
              {getKeymapHints(searchBarShortcutKeymap, isMac).map((hint) => (
                <kbd key={hint} className={styles.searchHint}>
                  {hint}
                </kbd>
              ))}
            </div>
          )
        ))}
      {/* Says so when the code could not be loaded; the box stays usable and
          the next interaction tries again. Visually hidden: it takes no room. */}
      <span role="status" style={VISUALLY_HIDDEN}>
        {failure}
      </span>
    </div>
  );
}

const VISUALLY_HIDDEN = {
  position: "absolute",
  width: 1,
  height: 1,
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  clipPath: "inset(50%)",
  whiteSpace: "nowrap",
} as const;
