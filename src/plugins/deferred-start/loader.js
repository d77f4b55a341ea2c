// Inlined into every page instead of Docusaurus' <script defer> tags (see
// ./index.ts). The server-rendered HTML is complete, so the site's code is
// not needed for the first paint and must not delay it: it starts loading
// once the page has loaded and the browser is idle, or at the reader's first
// interaction, whichever comes first.
//
// Presses on controls that need the code (buttons, toggles, tabs,
// collapsibles, the calculator's keys) made before the page is live are not
// lost: they are held, in order, and replayed on the same elements once it
// is. "Live" is the page's own mark, `<html data-live>`, which the
// src/theme/Root wrapper sets once the page has hydrated and the effects
// that enable its controls have run: the whole page hydrates in one render,
// so every element is React's by then. Until the mark, a held
// press stops here, so React never sees it: whether it has hydrated that
// element yet or not, it handles the press once, when replayed. Ordinary
// links are left alone: they work without code. An early Ctrl/⌘+K is held
// and replayed the same way, and a search box focused early is focused
// again, so its own handlers run.
//
// The file is a single function expression of the bundle list (./index.ts
// calls it); keep it so.
(scripts) => {
  var started = false;
  var held = [];
  var heldKeys = [];
  var CONTROL =
    'button,[role="button"],[role="tab"],[role="switch"],[role="checkbox"],summary,label,select,input[type="checkbox"],input[type="radio"],a';

  // Calls `then` once `element` is enabled (some controls render disabled
  // until their effects have run; most already are by the live mark).
  function whenEnabled(element, then) {
    var tries = 0;
    (function check() {
      if (!element.disabled) return then();
      if (++tries < 400) setTimeout(check, 25);
    })();
  }

  // The control a press was meant for, if it needs the code to work. The
  // Retry of a page whose code failed to load (src/client/chunk-failure.ts,
  // `data-chunk-failure`) works without it: the page never goes live.
  function control(target) {
    var element = target?.closest ? target.closest(CONTROL) : null;
    if (!element || element.closest(".act-diagram,[data-chunk-failure]")) return null;
    var href = element.tagName === "A" && element.getAttribute("href");
    if (href && href !== "#" && element.getAttribute("role") !== "button") return null;
    return element;
  }

  function onClick(event) {
    var element = control(event.target);
    if (element) {
      event.preventDefault();
      event.stopImmediatePropagation();
      held.push(element);
    }
    start();
  }

  // A click on a disabled control (some render disabled until the code
  // runs) fires no click event, only pointer events.
  function onPointerUp(event) {
    var element = control(event.target);
    if (element?.disabled) held.push(element);
    start();
  }

  function onKey(event) {
    if ((event.ctrlKey || event.metaKey) && /^k$/i.test(event.key)) {
      event.preventDefault();
      event.stopImmediatePropagation();
      heldKeys.push({
        key: event.key,
        code: event.code,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        bubbles: true,
        cancelable: true,
      });
    }
    start();
  }

  /** @type {[string, EventListener, boolean | AddEventListenerOptions][]} */
  var listeners = [
    ["click", onClick, true],
    ["pointerup", onPointerUp, true],
    ["keydown", onKey, true],
    ["focusin", start, true],
    ["touchstart", start, { capture: true, passive: true }],
    ["wheel", start, { capture: true, passive: true }],
  ];
  listeners.forEach((l) => {
    addEventListener(l[0], l[1], l[2]);
  });

  function replay() {
    listeners.forEach((l) => {
      removeEventListener(l[0], l[1], l[2]);
    });
    heldKeys.forEach((key) => {
      document.dispatchEvent(new KeyboardEvent("keydown", key));
    });
    var focused = /** @type {HTMLInputElement | null} */ (document.activeElement);
    if (!heldKeys.length && focused && focused.tagName === "INPUT" && focused.closest("nav")) {
      focused.blur();
      focused.focus();
      if (focused.value) focused.dispatchEvent(new Event("input", { bubbles: true }));
    }
    // One press per task: React renders what a press changed before the
    // next one runs, as between a reader's clicks (handlers read the state
    // of the last render; two presses in one task would both act on it).
    (function next() {
      var element = held.shift();
      if (element)
        whenEnabled(element, () => {
          if (element.isConnected) element.click();
          setTimeout(next, 0);
        });
    })();
  }

  function start() {
    if (started) return;
    started = true;
    scripts.forEach((src) => {
      var script = document.createElement("script");
      script.src = src;
      // In order (the runtime before the main bundle), as with defer.
      script.async = false;
      document.head.appendChild(script);
    });
  }

  // Replays once the page is live: the mark may come long after the bundles
  // were asked for (a slow connection), so it is observed, not polled.
  var mark = new MutationObserver(() => {
    if (!document.documentElement.hasAttribute("data-live")) return;
    mark.disconnect();
    replay();
  });
  mark.observe(document.documentElement, { attributes: true, attributeFilter: ["data-live"] });

  function whenIdle() {
    if (window.requestIdleCallback) requestIdleCallback(start, { timeout: 1500 });
    else setTimeout(start, 200);
  }
  if (document.readyState === "complete") whenIdle();
  else addEventListener("load", whenIdle);
};
