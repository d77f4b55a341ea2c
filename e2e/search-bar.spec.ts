// The navbar search box: pages ship a stand-in with the search bar's look,
// and the search bar's own code (its chunk is named "search-bar") loads when
// the reader reaches for the box. What the reader did meanwhile carries over:
// focus, typed text, the shortcut.
import type { Browser, BrowserContextOptions, Page, Request } from "@playwright/test";
import { INTRO, MAIN_BUNDLE, NOT_FOUND, RESOURCE_404, expect, holdRequests, hydrated, open, test } from "./site";

const SEARCH_BAR_CHUNK = /\/act-root\/assets\/js\/search-bar\.[0-9a-f]+\.js$/;

function searchBox(page: Page) {
  return page.locator('nav.navbar input[aria-label="Search"]');
}

/** The stand-in, until the real search bar has replaced it. */
function standIn(page: Page) {
  return page.locator("nav.navbar [data-search-stand-in]");
}

/** The real search bar's code has arrived and replaced the stand-in. */
async function expectRealBar(page: Page) {
  await expect(searchBox(page)).toHaveCount(1);
  await expect(standIn(page)).toHaveCount(0);
}

function suggestionTexts(page: Page) {
  return page.locator("nav.navbar").getByRole("listbox").getByRole("option").allInnerTexts();
}

/** The suggestions for "snapshot" list the state-management page: the query was searched whole. */
async function expectSnapshotHit(page: Page) {
  const options = page.locator("nav.navbar").getByRole("listbox").getByRole("option");
  await expect(options.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });
}

/** Counts the requests for the search bar's chunk. */
function watchChunk(page: Page) {
  const requests: string[] = [];
  page.on("request", (request: Request) => {
    if (SEARCH_BAR_CHUNK.test(new URL(request.url()).pathname)) requests.push(request.url());
  });
  return { count: () => requests.length };
}

/** Resolves once the browser has been idle, then a second more. */
async function idleAWhile(page: Page) {
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => new Promise((done) => requestIdleCallback(() => setTimeout(done, 1000))));
}

/** The suggestions a reader gets for `query` typed into a page whose search bar is in. */
async function referenceSuggestions(browser: Browser, query: string): Promise<string[]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await open(page, INTRO);
  await searchBox(page).focus();
  await expectRealBar(page);
  await searchBox(page).pressSequentially(query, { delay: 50 });
  const options = page.locator("nav.navbar").getByRole("listbox").getByRole("option");
  await expect(options.first()).toBeVisible({ timeout: 15_000 });
  // The list of the last keystroke: stable for a moment.
  let texts: string[] = [];
  await expect
    .poll(async () => {
      const before = await suggestionTexts(page);
      await page.waitForTimeout(300);
      texts = await suggestionTexts(page);
      return before.length > 0 && before.join("\n") === texts.join("\n");
    })
    .toBe(true);
  await context.close();
  return texts;
}

test("the search bar's code is not requested on page load, only when the reader reaches for the box", async ({
  page,
}) => {
  const chunk = watchChunk(page);
  await open(page, INTRO);
  await idleAWhile(page);
  expect(chunk.count(), "search bar requests before any interaction").toBe(0);
  await expect(standIn(page)).toHaveCount(1);
  // The stand-in is the box a reader sees: label, placeholder, shortcut hint.
  await expect(searchBox(page)).toBeVisible();
  await expect(searchBox(page)).toHaveAttribute("placeholder", "Search");
  await expect(standIn(page).locator("kbd")).toHaveText(["ctrl", "K"]);
  // Scrolling and reading elsewhere do not load it.
  await page.mouse.wheel(0, 600);
  await page.locator("article p").first().click();
  await idleAWhile(page);
  expect(chunk.count(), "search bar requests after unrelated interaction").toBe(0);

  // The pointer entering the box does.
  await searchBox(page).hover();
  await expect.poll(chunk.count).toBeGreaterThan(0);
  await expectRealBar(page);
});

test("focusing the search box from the keyboard loads the search bar", async ({ page }) => {
  const chunk = watchChunk(page);
  await open(page, INTRO);
  await idleAWhile(page);
  expect(chunk.count()).toBe(0);
  await searchBox(page).focus();
  await expect.poll(chunk.count).toBeGreaterThan(0);
  await expectRealBar(page);
  await expect(searchBox(page)).toBeFocused();
});

test("a query typed while the search bar's code is on its way is searched whole, in the same box", async ({
  browser,
  page,
}) => {
  const query = "PostgresStore";
  const expected = await referenceSuggestions(browser, query);
  expect(expected.join("\n")).toContain("Class: PostgresStore");

  const held = await holdRequests(page, SEARCH_BAR_CHUNK);
  await open(page, INTRO);
  await searchBox(page).click();
  await searchBox(page).pressSequentially(query);
  await expect.poll(held.requested).toBe(true);
  await expect(standIn(page)).toHaveCount(1);
  await expect(searchBox(page)).toHaveValue(query);
  await held.release();

  await expectRealBar(page);
  await expect(searchBox(page)).toBeFocused();
  await expect(searchBox(page)).toHaveValue(query);
  await expect.poll(() => suggestionTexts(page), { timeout: 15_000 }).toEqual(expected);
  // The caret stayed at the end: typing on extends the query.
  await searchBox(page).press("Backspace");
  await expect(searchBox(page)).toHaveValue(query.slice(0, -1));
});

test("typing at once after a click, while the code arrives, searches the whole query", async ({ browser, page }) => {
  const query = "snapshot";
  const expected = await referenceSuggestions(browser, query);
  await open(page, INTRO);
  await searchBox(page).click();
  await searchBox(page).pressSequentially(query);
  await expectRealBar(page);
  await expect(searchBox(page)).toHaveValue(query);
  await expect.poll(() => suggestionTexts(page), { timeout: 15_000 }).toEqual(expected);
});

test("Ctrl+K right after load focuses the box, and search works", async ({ page }) => {
  await open(page, INTRO);
  await page.locator("body").press("Control+k");
  await expect(searchBox(page)).toBeFocused();
  await searchBox(page).pressSequentially("snapshot");
  await expectSnapshotHit(page);
  await expectRealBar(page);
});

test("Ctrl+K while the search bar's code is on its way focuses the stand-in, and the query carries over", async ({
  page,
}) => {
  const held = await holdRequests(page, SEARCH_BAR_CHUNK);
  await open(page, INTRO);
  await page.locator("body").press("Control+k");
  await expect(searchBox(page)).toBeFocused();
  await expect(standIn(page)).toHaveCount(1);
  await page.keyboard.type("snapshot");
  await held.release();
  await expectRealBar(page);
  await expect(searchBox(page)).toBeFocused();
  await expect(searchBox(page)).toHaveValue("snapshot");
  await expectSnapshotHit(page);
});

test("a query typed before the page's code has arrived is searched once it has", async ({ page }) => {
  // The page paints from its HTML; hold its main bundle back.
  const main = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(INTRO, { waitUntil: "load" });
  await searchBox(page).click();
  await page.keyboard.type("snapshot");
  await expect.poll(main.requested).toBe(true);
  await main.release();
  await hydrated(page);
  await expectRealBar(page);
  await expect(searchBox(page)).toBeFocused();
  await expect(searchBox(page)).toHaveValue("snapshot");
  await expectSnapshotHit(page);
});

test("a page reached while the search bar's code is on its way gets the real bar when it arrives", async ({ page }) => {
  const held = await holdRequests(page, SEARCH_BAR_CHUNK);
  await open(page, INTRO);
  await searchBox(page).hover();
  await expect.poll(held.requested).toBe(true);
  // Another kind of page (the landing page), reached inside the site.
  await page.locator("nav.navbar a.navbar__brand").click();
  await expect(page).toHaveURL(/\/act-root\/$/);
  await page.mouse.move(0, 400);
  await held.release();
  await expectRealBar(page);
});

test("an address with the highlight parameter loads the search bar at once, without interaction", async ({ page }) => {
  const chunk = watchChunk(page);
  await page.goto(`${INTRO}?_highlight=snapshot`);
  await hydrated(page);
  await expect.poll(chunk.count).toBeGreaterThan(0);
  await expectRealBar(page);
});

/** Where the search box and its parts are drawn. */
function layoutOf(page: Page) {
  return page.locator("nav.navbar .navbar__search").evaluate((box) => {
    const rect = (element: Element | null) => {
      if (!element) return null;
      const r = element.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height].map((n) => Math.round(n * 100) / 100);
    };
    return {
      box: rect(box),
      input: rect(box.querySelector("input")),
      icon: rect(box.querySelector("svg")),
      hints: [...box.querySelectorAll("kbd")].map(rect),
      placeholder: getComputedStyle(box.querySelector("input")!).font,
    };
  });
}

/** Starts recording layout shifts; the returned function gives their sum so far. */
async function recordShifts(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __shift: number };
    w.__shift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!entry.hadRecentInput) w.__shift += entry.value;
    }).observe({ type: "layout-shift" });
  });
  return () => page.evaluate(() => (window as unknown as { __shift: number }).__shift);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 800 },
  { width: 412, height: 823 },
]) {
  test(`nothing moves when the real search bar replaces the stand-in (${viewport.width} px)`, async ({ browser }) => {
    const options: BrowserContextOptions =
      viewport.width < 600 ? { viewport, isMobile: true, hasTouch: true } : { viewport };
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const held = await holdRequests(page, SEARCH_BAR_CHUNK);
    await open(page, INTRO);
    const shifts = await recordShifts(page);
    // The box is in the navbar, not in the collapsed menu, at every width.
    await expect(searchBox(page)).toBeVisible();
    const before = await layoutOf(page);

    // Loaded without focus (the pointer rests on the box): same place, same size.
    await searchBox(page).hover();
    await expect.poll(held.requested).toBe(true);
    await held.release();
    await expectRealBar(page);
    expect(await layoutOf(page)).toEqual(before);
    expect(await shifts()).toBeLessThanOrEqual(0.02);
    await context.close();
  });

  test(`the focused box keeps its place and size when the real bar takes over (${viewport.width} px)`, async ({
    browser,
  }) => {
    const options: BrowserContextOptions =
      viewport.width < 600 ? { viewport, isMobile: true, hasTouch: true } : { viewport };
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const held = await holdRequests(page, SEARCH_BAR_CHUNK);
    await open(page, INTRO);
    const shifts = await recordShifts(page);
    if (options.hasTouch) await searchBox(page).tap();
    else await searchBox(page).click();
    await expect(searchBox(page)).toBeFocused();
    const before = await layoutOf(page);
    await held.release();
    await expectRealBar(page);
    await expect(searchBox(page)).toBeFocused();
    expect(await layoutOf(page)).toEqual(before);
    expect(await shifts()).toBeLessThanOrEqual(0.02);
    await searchBox(page).pressSequentially("snapshot");
    const options_ = page.locator("nav.navbar").getByRole("listbox").getByRole("option");
    await expect(options_.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });
    await context.close();
  });
}

test("when the search bar's code fails to load, the stand-in says so, and the next interaction tries again", async ({
  page,
  consoleLog,
}) => {
  consoleLog.allow(/Failed to load resource/);
  let fail = true;
  await page.route(SEARCH_BAR_CHUNK, (route) => (fail ? route.abort() : route.continue()));
  await open(page, INTRO);
  await searchBox(page).focus();
  const message = /could not be loaded/i;
  await expect(searchBox(page)).toHaveAttribute("title", message);
  await expect(standIn(page).getByRole("status")).toHaveText(message);
  await expect(standIn(page)).toHaveCount(1);
  await expect(searchBox(page)).toBeFocused();

  fail = false;
  await searchBox(page).pressSequentially("snapshot");
  await expectRealBar(page);
  await expect(searchBox(page)).toHaveValue("snapshot");
  await expectSnapshotHit(page);
});

test("the not-found page's search button focuses the real box after it has replaced the stand-in", async ({
  page,
  consoleLog,
}) => {
  consoleLog.allow(RESOURCE_404);
  await open(page, NOT_FOUND);
  await searchBox(page).hover();
  await expectRealBar(page);
  await page.mouse.move(0, 400);
  await page.getByRole("button", { name: "Search the documentation" }).click();
  await expect(searchBox(page)).toBeFocused();
});
