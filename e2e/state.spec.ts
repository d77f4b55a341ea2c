// Interface state (colour mode, loading) and what the browser keeps:
// "Browser local storage holds the docs version preference and the
// colour-mode setting. Unavailable storage produces a warning only."
import type { Page } from "@playwright/test";
import { CONCEPT, EXAMPLE, INTRO, expect, hydrated, mainHeading, open, test } from "./site";

const toggle = (page: Page) => page.locator("nav.navbar").getByRole("button", { name: /dark and light mode/i });
const dataTheme = (page: Page) => page.locator("html").getAttribute("data-theme");
const storedTheme = (page: Page) => page.evaluate(() => window.localStorage.getItem("theme"));

test("colour mode defaults to light", async ({ page }) => {
  for (const colorScheme of ["light", "no-preference"] as const) {
    await page.emulateMedia({ colorScheme });
    await open(page, INTRO);
    expect(await dataTheme(page), `data-theme with system preference ${colorScheme}`).toBe("light");
    expect(await storedTheme(page), "nothing stored before a choice").toBeNull();
    await expect(toggle(page)).toBeVisible();
  }
});

for (const system of ["light", "dark"] as const) {
  test(`colour-mode toggle cycles light → dark → system, stored under "theme" (system preference ${system})`, async ({
    page,
  }) => {
    test.setTimeout(60_000);
    await page.emulateMedia({ colorScheme: system });
    await open(page, INTRO);
    expect(await dataTheme(page), "before any choice data-theme follows the system").toBe(system);
    const steps: [string, string | null, string][] = [
      ["light mode", "light", "light"],
      ["dark mode", "dark", "dark"],
      ["system mode", null, system],
    ];
    // Get to the start of the cycle: the choice "light".
    for (let i = 0; i < 3 && !/currently light mode/.test((await toggle(page).getAttribute("aria-label")) ?? ""); i++) {
      await toggle(page).click();
    }
    await expect(toggle(page)).toHaveAttribute("aria-label", /currently light mode/);
    for (let round = 0; round < 2; round++) {
      for (const [label, stored, theme] of steps) {
        await expect(toggle(page)).toHaveAttribute("aria-label", new RegExp(`currently ${label}`));
        expect(await storedTheme(page), `stored choice for ${label}`).toBe(stored);
        await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
        if (round === 0) {
          // The choice survives a reload.
          await page.reload();
          await hydrated(page);
          await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
          await expect(toggle(page)).toHaveAttribute("aria-label", new RegExp(`currently ${label}`));
        }
        await toggle(page).click();
      }
    }
  });
}

test("in system mode data-theme follows a change of the system preference", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await open(page, INTRO);
  expect(await storedTheme(page)).toBeNull();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
});

test("local storage unavailable: the site still renders and works, with only a warning", async ({
  page,
  consoleLog,
}) => {
  await page.addInitScript(() => {
    const blocked = () => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
    Object.defineProperty(window, "localStorage", { configurable: true, get: blocked });
    Object.defineProperty(window, "sessionStorage", { configurable: true, get: blocked });
  });
  await open(page, INTRO);
  expect(
    await page.evaluate(() => {
      try {
        return typeof window.localStorage;
      } catch {
        return "blocked";
      }
    })
  ).toBe("blocked");
  await expect(mainHeading(page)).toBeVisible();
  // Colour mode still switches (system → light → dark), for this page view.
  await toggle(page).click();
  await expect(toggle(page)).toHaveAttribute("aria-label", /currently light mode/);
  await toggle(page).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  // Client-side navigation still works.
  await page.locator(`aside a[href="${CONCEPT}"]`).click();
  await expect(page).toHaveURL(/concepts\/state-management\/?$/);
  await expect(mainHeading(page)).toHaveText(/State management/i);
  // The announcement bar can still be closed.
  await page.locator(".theme-announcement-bar").getByRole("button", { name: /close/i }).click();
  await expect(page.locator(".theme-announcement-bar")).toBeHidden();
  expect(
    consoleLog.warnings.some((w) => /storage is not available/i.test(w)),
    "a storage warning"
  ).toBe(true);
  expect(consoleLog.errors).toEqual([]);
});

test("the docs version preference is stored in local storage after visiting a doc", async ({ page }) => {
  await open(page, "/act-root/");
  const versionKeys = () =>
    page.evaluate(() =>
      Object.fromEntries(
        Object.keys(window.localStorage)
          .filter((key) => key.includes("docs-preferred-version"))
          .map((key) => [key, window.localStorage.getItem(key)])
      )
    );
  expect(await versionKeys(), "no preference before a doc was visited").toEqual({});
  await open(page, EXAMPLE);
  await expect.poll(versionKeys).toEqual({ "docs-preferred-version-default": "current" });
});

test("the navigation progress bar does not appear within 200 ms of a fast navigation", async ({ page }) => {
  await open(page, INTRO);
  // Make the navigation fast: the target route's chunks are loaded beforehand.
  await page.evaluate(
    (path) => (window as unknown as { docusaurus: { preload(p: string): Promise<unknown> } }).docusaurus.preload(path),
    CONCEPT
  );
  await page.evaluate(() => {
    const w = window as unknown as { navStart?: number; barAt?: number };
    document.addEventListener("click", () => (w.navStart = performance.now()), { capture: true, once: true });
    new MutationObserver(() => {
      if (w.barAt === undefined && document.getElementById("nprogress")) w.barAt = performance.now();
    }).observe(document.documentElement, { childList: true, subtree: true });
  });
  await page.locator(`aside a[href="${CONCEPT}"]`).click();
  await expect(mainHeading(page)).toHaveText(/State management/i);
  const doneAt = await page.evaluate(() => performance.now());
  // Wait past the 200 ms mark before looking.
  await page.waitForFunction((t) => performance.now() > t + 300, doneAt);
  const { navStart, barAt } = await page.evaluate(() => {
    const w = window as unknown as { navStart: number; barAt?: number };
    return { navStart: w.navStart, barAt: w.barAt };
  });
  expect(navStart, "the click was seen").toBeGreaterThan(0);
  if (barAt !== undefined) expect(barAt - navStart, "progress bar shown before 200 ms").toBeGreaterThanOrEqual(200);
  if (doneAt - navStart < 200) expect(barAt, "a navigation done within 200 ms never shows the bar").toBeUndefined();
});
