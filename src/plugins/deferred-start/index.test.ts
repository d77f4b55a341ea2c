// Docusaurus' page template still writes its scripts the way the swap
// expects, so an upgrade that changes it fails here (and the build fails
// too) instead of silently shipping the scripts unchanged.
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { describe, test } from "vitest";
import { SCRIPT_LOOP, deferredStartTemplate, docusaurusTemplate, loaderSource } from "./index";

describe("deferred-start: Docusaurus' page template still writes its scripts the way the swap expects", () => {
  test("the script loop is found in Docusaurus' template and replaced by the inline loader", () => {
    const template = docusaurusTemplate();
    assert.match(template, SCRIPT_LOOP);
    const deferred = deferredStartTemplate(template);
    assert.doesNotMatch(deferred, /<script src=[^>]*defer>/);
    assert.match(
      deferred,
      /<script>.*JSON\.stringify\(it\.scripts\.map\(\(script\) => it\.baseUrl \+ script\)\).*<\/script>/s
    );
  });

  test("a template without the loop fails loudly instead of shipping the scripts unchanged", () => {
    assert.throws(() => deferredStartTemplate("<html><head></head></html>"), /no longer writes its scripts/);
  });

  test("the inlined loader runs as a page script and adds the bundles in order once the browser is idle", () => {
    const page = fakePage();
    runInNewContext(loaderSource(JSON.stringify(["/r.js", "/m.js"])), page.window);
    assert.deepEqual(
      page.appended.map(({ src, async }) => ({ src, async })),
      [
        { src: "/r.js", async: false },
        { src: "/m.js", async: false },
      ]
    );
    assert.deepEqual(
      // Objects made inside the page script belong to its realm: compare their data.
      JSON.parse(JSON.stringify(page.observed)),
      [{ attributes: true, attributeFilter: ["data-live"] }],
      "it waits for the live mark"
    );
  });

  test("a press before the page is live stops at the loader and is replayed once, on the same element, at the mark", () => {
    const page = fakePage();
    runInNewContext(loaderSource("[]"), page.window);
    const toggle = {
      tagName: "BUTTON",
      disabled: false,
      isConnected: true,
      clicks: 0,
      closest: () => null,
      getAttribute: () => null,
      click() {
        this.clicks++;
      },
    };
    const target = { closest: () => toggle };
    const event = {
      target,
      prevented: 0,
      stopped: 0,
      preventDefault() {
        this.prevented++;
      },
      stopImmediatePropagation() {
        this.stopped++;
      },
    };
    page.dispatch("click", event);
    assert.equal(event.prevented, 1, "the browser's default is held back");
    assert.equal(event.stopped, 1, "React, hydrated or not, never sees the held press");
    assert.equal(toggle.clicks, 0);
    page.mutate(); // a mutation that is not the mark
    assert.equal(toggle.clicks, 0, "nothing is replayed before the mark");
    page.live = true;
    page.mutate();
    assert.equal(toggle.clicks, 1, "replayed once at the mark");
    assert.equal(page.listeners.size, 0, "the loader steps aside once the page is live");
    assert.equal(page.disconnected, true);
  });

  test("held presses replay one per task, and the failure screen's Retry is never held", () => {
    const page = fakePage();
    runInNewContext(loaderSource("[]"), page.window);
    const button = (inside: string | null) => {
      const element = {
        tagName: "BUTTON",
        disabled: false,
        isConnected: true,
        clicks: 0,
        closest: (selector: string) => (inside && selector.includes(inside) ? {} : null),
        getAttribute: () => null,
        click() {
          this.clicks++;
        },
      };
      return element;
    };
    // How many times the loader held back the press's default (held it).
    const press = (element: ReturnType<typeof button>) => {
      let held = 0;
      page.dispatch("click", {
        target: { closest: () => element },
        preventDefault: () => held++,
        stopImmediatePropagation: () => {},
      });
      return held;
    };
    const retry = button("[data-chunk-failure]");
    assert.equal(press(retry), 0, "a Retry works without the code: the page never goes live");
    const first = button(null);
    const second = button(null);
    press(first);
    press(second);
    page.tasks.length = 0;
    page.live = true;
    page.mutate();
    assert.deepEqual([first.clicks, second.clicks], [1, 0], "one press, then React renders");
    page.tasks.splice(0).forEach((task) => {
      task();
    });
    assert.deepEqual([first.clicks, second.clicks], [1, 1], "the next press in a task of its own");
  });
});

/** A page just enough for the loader: events, the live mark, script tags. */
function fakePage() {
  const appended: { src?: string; async?: boolean }[] = [];
  const listeners = new Map<string, (event: unknown) => void>();
  const observed: unknown[] = [];
  const tasks: (() => void)[] = [];
  let onMutation: () => void = () => {};
  const state = {
    live: false,
    disconnected: false,
    appended,
    listeners,
    observed,
    tasks,
    window: {} as Record<string, unknown>,
    dispatch: (type: string, event: unknown) => listeners.get(type)?.(event),
    mutate: () => onMutation(),
  };
  const documentElement = { hasAttribute: (name: string) => name === "data-live" && state.live };
  Object.assign(state.window, {
    document: {
      readyState: "complete",
      documentElement,
      createElement: () => ({}),
      head: { appendChild: (element: { src?: string; async?: boolean }) => appended.push(element) },
    },
    addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
    removeEventListener: (type: string) => listeners.delete(type),
    requestIdleCallback: (callback: () => void) => callback(),
    // Timers queue their callbacks; `tasks` runs them when a test says so.
    setTimeout: (callback: () => void) => tasks.push(callback),
    MutationObserver: class {
      constructor(callback: () => void) {
        onMutation = callback;
      }
      observe(node: unknown, options: unknown) {
        assert.equal(node, documentElement);
        observed.push(options);
      }
      disconnect() {
        state.disconnected = true;
      }
    },
  });
  state.window.window = state.window;
  return state;
}
