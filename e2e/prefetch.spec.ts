// Idle prefetching: the code of linked pages is fetched in idle time, at most
// 300 KB per page, and not at all for a reader who saves data or is on a slow
// connection.
import type { Page, Request } from "@playwright/test";
import { API_INDEX, INTRO, expect, hydrated, test } from "./site";

const BUDGET = 300 * 1024;

/** Collects the page's prefetch requests (`<link rel=prefetch>`) and the bytes they carried. */
function prefetches(page: Page) {
  const done: Promise<number>[] = [];
  const urls: string[] = [];
  page.on("requestfinished", (request: Request) => {
    if (request.headers()["sec-purpose"] !== "prefetch") return;
    urls.push(request.url());
    done.push(request.sizes().then((sizes) => sizes.responseBodySize + sizes.responseHeadersSize));
  });
  return {
    urls,
    bytes: async () => (await Promise.all(done)).reduce((a, b) => a + b, 0),
  };
}

/** Lets idle prefetching run its course: scroll every link into view, then wait for quiet. */
async function settle(page: Page) {
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += 600) {
      window.scrollTo(0, y);
      await new Promise((done) => setTimeout(done, 50));
    }
  });
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(2000);
  await page.waitForLoadState("networkidle");
}

/** Says what the Network Information API says before any page script runs. */
async function connection(page: Page, value: { saveData?: boolean; effectiveType: string }) {
  await page.addInitScript((value) => {
    Object.defineProperty(navigator, "connection", { configurable: true, get: () => value });
  }, value);
}

for (const path of [INTRO, API_INDEX]) {
  test(`${path}: linked pages are prefetched once the page is idle, at most 300 KB`, async ({ page }) => {
    await connection(page, { effectiveType: "4g" });
    const seen = prefetches(page);
    await page.goto(path);
    await hydrated(page);
    await settle(page);
    expect(seen.urls.length, "some linked page's code is prefetched").toBeGreaterThan(0);
    const bytes = await seen.bytes();
    expect(bytes, `${(bytes / 1024).toFixed(1)} KB prefetched`).toBeLessThanOrEqual(BUDGET);
  });
}

for (const [what, value] of [
  ["Save-Data", { saveData: true, effectiveType: "4g" }],
  ["a 3g connection", { effectiveType: "3g" }],
] as const) {
  test(`with ${what} nothing is prefetched, and a click still opens the page`, async ({ page }) => {
    await connection(page, value);
    const seen = prefetches(page);
    await page.goto(INTRO);
    await hydrated(page);
    await settle(page);
    expect(seen.urls).toEqual([]);
    await page.locator("aside nav.menu").getByRole("link", { name: "State management" }).click();
    await expect(page).toHaveURL(/concepts\/state-management$/);
  });
}
