// The live example: the calculator page runs @act-root/calculator with the real @act-root/act
// in-memory store in the browser.
import type { Locator, Page } from "@playwright/test";
import { EXAMPLE, INTRO, MAIN_BUNDLE, expect, holdRequests, hydrated, open, test } from "./site";

function calculator(page: Page) {
  const root = page.getByRole("region", { name: "Live calculator" });
  return {
    root,
    display: root.getByTestId("calculator-display"),
    message: root.getByTestId("calculator-message"),
    state: root.getByTestId("calculator-state"),
    rows: root.getByTestId("calculator-events").locator("tbody tr"),
    key: (name: string) => root.getByRole("button", { name, exact: true }),
  };
}

test("live calculator: pressing 1 + 2 = shows 3 and the four events", async ({ page }) => {
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await expect(calc.display).toHaveText("0");
  for (const key of ["1", "Plus", "2", "Equals"]) await calc.key(key).click();
  await expect(calc.display).toHaveText("3");
  await expect(calc.rows).toHaveCount(4);
  await expect(calc.rows.nth(0)).toContainText("DigitPressed");
  await expect(calc.rows.nth(0)).toContainText('{"digit":"1"}');
  await expect(calc.rows.nth(1)).toContainText("OperatorPressed");
  await expect(calc.rows.nth(1)).toContainText('{"operator":"+"}');
  await expect(calc.rows.nth(2)).toContainText("DigitPressed");
  await expect(calc.rows.nth(3)).toContainText("EqualsPressed");
  await expect(calc.rows.nth(3)).toContainText('{"result":3}');
  // Versions 0..3, and the state folded from them.
  await expect(calc.rows.locator("td:first-child")).toHaveText(["0", "1", "2", "3"]);
  await expect(calc.state).toContainText('"result": 3');
  await expect(calc.display).toHaveAttribute("aria-live", "polite");
});

test("live calculator: an invariant refusal reads as a message; Reset starts a new stream", async ({ page }) => {
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await calc.key("Clear").click();
  await expect(calc.message).toHaveText(/Refused: Calculator must not be clean/);
  await expect(calc.rows).toHaveText(["No events yet: press a key."]);

  for (const key of ["8", "Divide", "0", "Equals"]) await calc.key(key).click();
  await expect(calc.message).toHaveText(/Refused: Cannot divide by zero/);
  await expect(calc.rows).toHaveCount(3);
  await calc.key("5").click();
  await expect(calc.message).toHaveText("");

  const stream = await calc.root.locator("code").first().textContent();
  await calc.root.getByRole("button", { name: /Reset/ }).click();
  await expect(calc.root.locator("code").first()).not.toHaveText(stream ?? "");
  await expect(calc.display).toHaveText("0");
  await expect(calc.rows).toHaveText(["No events yet: press a key."]);
});

test("live calculator: works from the keyboard and shows the snapshot the .snap rule writes", async ({ page }) => {
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await calc.key("7").focus();
  // Ten counted keys: the snap rule (patches >= 10) writes a snapshot.
  await page.keyboard.type("12+34*2-1=");
  await expect(calc.display).toHaveText("91");
  await expect(calc.rows.filter({ hasText: "snapshot" })).toHaveCount(1);
  await expect(calc.root).toContainText("1 snapshot(s)");
  // Enter on a focused key presses that key (not "="); Escape clears.
  await calc.key("4").focus();
  await page.keyboard.press("Enter");
  await expect(calc.display).toHaveText("4");
  await page.keyboard.press("Escape");
  await expect(calc.display).toHaveText("0");
});

/** The calculator's own chunk (its `webpackChunkName`, see src/components/LiveCalculator/useCalculator.ts). */
const CALCULATOR_CHUNK = /\/assets\/js\/live-calculator\.[0-9a-f]+\.js$/;
/** A string only the library holds (InvariantError's message): whichever chunk carries it carries the library. */
const LIBRARY = "failed invariant: ";

/** Every script a page fetches, with its body, from now on. */
function scriptsOf(page: Page) {
  const scripts: { url: string; body: Promise<string> }[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script")
      scripts.push({ url: response.url(), body: response.text().catch(() => "") });
  });
  return {
    /** Scripts that carry the calculator's code: its chunk by name, or any chunk holding the library. */
    calculator: async () => {
      const found: string[] = [];
      for (const { url, body } of scripts)
        if (CALCULATOR_CHUNK.test(url) || (await body).includes(LIBRARY)) found.push(url);
      return found;
    },
  };
}

test("live calculator: its code is not loaded on other pages, nor on its own page until the reader uses it", async ({
  page,
}) => {
  const scripts = scriptsOf(page);
  await open(page, INTRO);
  await page.waitForLoadState("networkidle");
  expect(await scripts.calculator(), "the calculator's code on the intro").toEqual([]);

  await open(page, EXAMPLE);
  await page.waitForLoadState("networkidle");
  expect(await scripts.calculator(), "the calculator's code before the reader used it").toEqual([]);

  await calculator(page).key("5").click();
  await expect(calculator(page).display).toHaveText("5");
  const loaded = await scripts.calculator();
  expect(
    loaded.some((url) => CALCULATOR_CHUNK.test(url)),
    loaded.join(", ")
  ).toBe(true);
  expect(
    loaded.every((url) => /\/assets\/js\/[^/]+\.js$/.test(url)),
    loaded.join(", ")
  ).toBe(true);
});

test("live calculator: on a phone, scrolled into view, it shows its keys but loads its code only when touched", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const scripts = scriptsOf(page);
  await page.goto(EXAMPLE);
  await hydrated(page);
  const calc = calculator(page);
  await calc.root.scrollIntoViewIfNeeded();
  await expect(calc.root).toBeInViewport();
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  // The real face, from the page's HTML: the display and named keys.
  await expect(calc.display).toHaveText("0");
  await expect(calc.root.getByRole("group", { name: "Keypad" }).getByRole("button")).toHaveCount(18);
  await expect(calc.key("Equals")).toBeVisible();
  expect(await scripts.calculator(), "the calculator's code fetched before the reader touched it").toEqual([]);

  await calc.key("7").tap();
  await expect(calc.display).toHaveText("7");
  await expect(calc.rows).toHaveCount(1);
  const loaded = await scripts.calculator();
  expect(
    loaded.some((url) => CALCULATOR_CHUNK.test(url)),
    loaded.join(", ")
  ).toBe(true);
  const bodies = await Promise.all(loaded.map(async (url) => (await page.request.get(url)).text()));
  expect(
    bodies.some((body) => body.includes(LIBRARY)),
    "the chunk named live-calculator brings the library"
  ).toBe(true);
  await context.close();
});

test("live calculator: keys clicked before its code has arrived are applied, in order, once it has", async ({
  page,
}) => {
  const held = await holdRequests(page, CALCULATOR_CHUNK);
  await open(page, EXAMPLE);
  const calc = calculator(page);
  for (const key of ["1", "Plus", "2", "Equals"]) await calc.key(key).click();
  await expect.poll(held.requested, { message: "the first click asks for the code" }).toBe(true);
  // Held, not lost: the reader is told the calculator is on its way.
  await expect(calc.message).toHaveText("Loading the calculator…");
  await expect(calc.display).toHaveText("0");
  await held.release();
  await expect(calc.display).toHaveText("3");
  await expect(calc.rows).toHaveCount(4);
  await expect(calc.rows.locator("td:nth-child(2)")).toHaveText([
    "DigitPressed",
    "OperatorPressed",
    "DigitPressed",
    "EqualsPressed",
  ]);
  await expect(calc.message).toHaveText("");
});

test("live calculator: a mouse resting on it starts loading its code, before any click", async ({ page }) => {
  const held = await holdRequests(page, CALCULATOR_CHUNK);
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await calc.root.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  expect(held.requested(), "requested before the mouse came").toBe(false);
  await calc.display.hover();
  await expect.poll(held.requested, { message: "the hover asks for the code" }).toBe(true);
  await held.release();
  // Nothing was pressed: the calculator is read, not changed.
  await expect(calc.state).toContainText('"left": ""');
  await expect(calc.rows).toHaveText(["No events yet: press a key."]);
});

test("live calculator: keys typed before its code has arrived are applied, in order, once it has", async ({ page }) => {
  const held = await holdRequests(page, CALCULATOR_CHUNK);
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await calc.key("7").focus();
  await page.keyboard.type("9*4");
  await page.keyboard.press("Escape");
  await page.keyboard.type("8/2=");
  await expect.poll(held.requested).toBe(true);
  await expect(calc.display).toHaveText("0");
  await held.release();
  await expect(calc.display).toHaveText("4");
  await expect(calc.rows.locator("td:nth-child(2)")).toHaveText([
    "DigitPressed",
    "OperatorPressed",
    "DigitPressed",
    "Cleared",
    "DigitPressed",
    "OperatorPressed",
    "DigitPressed",
    "EqualsPressed",
  ]);
  // Focus stayed on the key the reader was typing on: the face is the live calculator.
  await expect(calc.key("7")).toBeFocused();
});

test("live calculator: a key clicked before the page's own code has arrived is applied too", async ({ page }) => {
  const main = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(EXAMPLE, { waitUntil: "load" });
  const calc = calculator(page);
  await calc.key("8").click();
  await expect.poll(main.requested).toBe(true);
  await main.release();
  await expect(calc.display).toHaveText("8");
  await expect(calc.rows).toHaveCount(1);
});

/** Where an element is on the page (not in the viewport: clicks scroll it). */
const place = (element: Locator) =>
  element.evaluate((node) => {
    const { left, top, width, height } = node.getBoundingClientRect();
    return { left: left + window.scrollX, top: top + window.scrollY, width, height };
  });

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 412, height: 823 },
]) {
  test(`live calculator: nothing moves when its code arrives after the reader's keys (${viewport.width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const held = await holdRequests(page, CALCULATOR_CHUNK);
    await open(page, EXAMPLE);
    const calc = calculator(page);
    // Shifts that come later than half a second after an input count against the page (CLS).
    await page.evaluate(() => {
      const w = window as unknown as { shifts: number };
      w.shifts = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
          if (!entry.hadRecentInput) w.shifts += entry.value;
      }).observe({ type: "layout-shift" });
    });
    await calc.root.scrollIntoViewIfNeeded();
    const next = page.locator("h2", { hasText: "Run it" });
    const before = { frame: await place(calc.root), next: await place(next) };
    // A refusal (the longest message), an operator (the largest state), three events.
    for (const key of ["8", "Divide", "0", "Equals"]) await calc.key(key).click();
    await expect.poll(held.requested).toBe(true);
    await page.waitForTimeout(600);
    await held.release();
    await expect(calc.message).toHaveText(/Refused: Cannot divide by zero/);
    await expect(calc.rows).toHaveCount(3);
    await expect(calc.state).toContainText('"operator"');
    expect({ frame: await place(calc.root), next: await place(next) }).toEqual(before);
    expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts)).toBeLessThanOrEqual(0.02);
  });
}

test("live calculator: if its code fails to load, it says so, and Retry loads it and applies the keys pressed", async ({
  page,
  consoleLog,
}) => {
  consoleLog.allow(/Failed to load resource|live calculator's code failed to load/);
  let fail = true;
  await page.route(CALCULATOR_CHUNK, (route) => (fail ? route.abort() : route.continue()));
  await open(page, EXAMPLE);
  const calc = calculator(page);
  await calc.key("6").click();
  const alert = calc.root.getByRole("alert");
  await expect(alert).toContainText("The calculator's code did not load.");
  await expect(calc.display).toHaveText("0");
  fail = false;
  const retry = alert.getByRole("button", { name: "Retry" });
  // Pointing at Retry does not fetch the code by itself (the button would
  // vanish under the reader's pointer): Retry does.
  await retry.hover();
  await page.waitForTimeout(400);
  await expect(alert).toContainText("The calculator's code did not load.");
  await retry.click();
  await expect(calc.display).toHaveText("6");
  await expect(calc.rows).toHaveCount(1);
  await expect(alert).toHaveCount(0);
});

for (const mode of ["light", "dark"] as const) {
  test(`live calculator: axe finds no serious or critical violations in it, with events and a refusal shown (${mode})`, async ({
    page,
  }) => {
    test.setTimeout(60_000);
    await page.addInitScript((theme) => {
      try {
        window.localStorage.setItem("theme", theme);
      } catch {}
    }, mode);
    await open(page, EXAMPLE);
    // The scan proves something about this colour mode only if the page is in it.
    await expect(page.locator("html")).toHaveAttribute("data-theme", mode);
    const calc = calculator(page);
    for (const key of ["9", "Divide", "0", "Equals"]) await calc.key(key).click();
    await expect(calc.message).toHaveText(/Refused/);
    const { default: AxeBuilder } = await import("@axe-core/playwright");
    const { violations } = await new AxeBuilder({ page }).include('section[aria-label="Live calculator"]').analyze();
    const serious = violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious).toEqual([]);
  });
}
