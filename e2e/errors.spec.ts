// The crash and load-failure screens: a page whose code fails to load shows
// the error text with Retry, and a failed preload on navigation reloads.
import { CONCEPT, INTRO, expect, hydrated, mainHeading, test } from "./site";

test("a page-chunk load failure shows the error text with Retry, and Retry recovers once the chunk loads", async ({
  page,
  consoleLog,
}) => {
  // While `failing`, every page chunk not fetched yet is aborted (the app's
  // runtime and main bundle always load): the chunks of the page the reader
  // goes to next fail, as after a deployment or on a broken connection.
  let failing = false;
  const aborted: string[] = [];
  await page.route("**/assets/js/**", (route) => {
    const path = new URL(route.request().url()).pathname;
    if (failing && !/\/(runtime~main|main)\.[^/]*\.js$/.test(path)) {
      aborted.push(path);
      return route.abort("failed");
    }
    return route.continue();
  });
  consoleLog.allow(/net::ERR_FAILED|ChunkLoadError|Loading (CSS )?chunk|Failed to fetch dynamically imported module/i);
  // A server-rendered page whose chunk fails cannot hydrate to the same markup.
  consoleLog.allow(/onRecoverableError/);

  await page.goto(INTRO);
  await hydrated(page);
  await page.waitForLoadState("networkidle");
  failing = true;
  await page.locator(`aside a[href="${CONCEPT}"]`).click();

  const retry = page.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible({ timeout: 15_000 });
  expect(aborted.length, "a page chunk was requested and aborted").toBeGreaterThan(0);
  await expect(page.locator("body")).toContainText(/chunk|failed|error/i);

  failing = false;
  await retry.click();
  await expect(retry).toBeHidden();
  await expect(mainHeading(page)).toHaveText(/State management/i);
  await expect(page).toHaveURL(/concepts\/state-management\/?$/);
});

test("a route preload failure during navigation makes a full page reload", async ({ page, consoleLog }) => {
  // The next page's chunks fail once (a stale deployment); the reload that
  // follows gets them.
  let failing = false;
  await page.route("**/assets/js/**", (route) => {
    const path = new URL(route.request().url()).pathname;
    if (failing && !/\/(runtime~main|main)\.[^/]*\.js$/.test(path)) return route.abort("failed");
    return route.continue();
  });
  consoleLog.allow(/net::ERR_FAILED|ChunkLoadError|Loading (CSS )?chunk/i);
  await page.goto(INTRO);
  await hydrated(page);
  await page.waitForLoadState("networkidle");
  const documents: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "document") {
      documents.push(new URL(request.url()).pathname);
      failing = false;
    }
  });
  failing = true;
  await page.locator(`aside a[href="${CONCEPT}"]`).click();
  await expect(mainHeading(page)).toHaveText(/State management/i);
  await hydrated(page);
  expect(
    documents.some((path) => path.startsWith(CONCEPT)),
    "the browser reloaded the page"
  ).toBe(true);
});
