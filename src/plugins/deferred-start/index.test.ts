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
    const appended: { src?: string; async?: boolean }[] = [];
    const timers: unknown[] = [];
    const page: Record<string, unknown> = {
      document: {
        readyState: "complete",
        createElement: () => ({}),
        head: { appendChild: (element: { src?: string; async?: boolean }) => appended.push(element) },
      },
      addEventListener: () => {},
      removeEventListener: () => {},
      requestIdleCallback: (callback: () => void) => callback(),
      setInterval: (callback: unknown) => timers.push(callback),
      clearInterval: () => {},
    };
    page.window = page;
    runInNewContext(loaderSource(JSON.stringify(["/r.js", "/m.js"])), page);
    assert.deepEqual(
      appended.map(({ src, async }) => ({ src, async })),
      [
        { src: "/r.js", async: false },
        { src: "/m.js", async: false },
      ]
    );
    assert.equal(timers.length, 1, "it then waits for React to take the page over");
  });
});
