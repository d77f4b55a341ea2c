// The live example: the calculator page runs @act-root/calculator with the real @act-root/act
// in-memory store in the browser.
import type { Page } from "@playwright/test";
import { EXAMPLE, INTRO, expect, hydrated, open, test } from "./site";

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

test("live calculator: its code is loaded lazily, and not at all on other pages", async ({ page }) => {
  // Strings only the lazy chunks hold: the calculator view and the library.
  const markers = ["calculator-display", "failed invariant: "];
  const loaded = async (path: string, settle?: () => Promise<void>) => {
    const bodies: { url: string; text: string }[] = [];
    const seen = (response: import("@playwright/test").Response) =>
      response
        .text()
        .then((text) => bodies.push({ url: response.url(), text }))
        .catch(() => undefined);
    page.on("response", seen);
    await open(page, path);
    await settle?.();
    await page.waitForLoadState("networkidle");
    page.off("response", seen);
    return bodies.filter(({ text }) => markers.some((m) => text.includes(m))).map(({ url }) => url);
  };
  // Any response at all (scripts, prefetches): none holds the calculator's code.
  expect(await loaded(INTRO)).toEqual([]);
  // On its page it arrives after the page's own HTML, as separate chunks.
  const onPage = await loaded(EXAMPLE, () => expect(calculator(page).display).toHaveText("0"));
  expect(onPage.length).toBeGreaterThan(0);
  expect(
    onPage.every((url) => /\/assets\/js\/[^/]+\.js$/.test(url)),
    onPage.join(", ")
  ).toBe(true);
});

test("live calculator: on a phone its code loads only once the reader scrolls to it", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const calculatorCode: string[] = [];
  page.on("response", (response) => {
    void response
      .text()
      .then((text) => text.includes("calculator-display") && calculatorCode.push(response.url()))
      .catch(() => undefined);
  });
  await page.goto(EXAMPLE);
  await hydrated(page);
  await page.waitForLoadState("networkidle");
  const calc = calculator(page);
  await expect(calc.root).not.toBeInViewport();
  await expect(calc.root.getByRole("status")).toHaveText(/Loading the live calculator/);
  expect(calculatorCode, "calculator code fetched before the reader scrolled to it").toEqual([]);

  await calc.root.scrollIntoViewIfNeeded();
  await expect(calc.display).toHaveText("0");
  expect(calculatorCode.length).toBeGreaterThan(0);
  await calc.key("7").tap();
  await expect(calc.display).toHaveText("7");
  await context.close();
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
