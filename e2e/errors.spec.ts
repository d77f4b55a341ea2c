// spec §2 "Crash and load-failure screens" and §8 "Page chunk load failure:
// error text with Retry".
import type { APIRequestContext } from "@playwright/test";
import { CONCEPT, INTRO, expect, mainHeading, open, test } from "./site";

/** Script chunks a page's server-rendered HTML asks for. */
async function scripts(request: APIRequestContext, path: string): Promise<Set<string>> {
  const html = await (await request.get(path)).text();
  return new Set([...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+\.js)"/g)].map((m) => m[1]));
}

test("§8 a page-chunk load failure shows the error text with Retry, and Retry recovers once the chunk loads", async ({
  page,
  request,
  consoleLog,
}) => {
  // The chunks only the concept page needs (its content), not the intro.
  const introChunks = await scripts(request, INTRO);
  const pageChunks = [...(await scripts(request, CONCEPT))].filter((src) => !introChunks.has(src));
  expect(pageChunks.length, "the concept page has chunks of its own").toBeGreaterThan(0);

  let failing = true;
  const aborted: string[] = [];
  await page.route("**/assets/js/**", (route) => {
    const path = new URL(route.request().url()).pathname;
    if (failing && pageChunks.includes(path)) {
      aborted.push(path);
      return route.abort("failed");
    }
    return route.continue();
  });
  consoleLog.allow(/net::ERR_FAILED|ChunkLoadError|Loading (CSS )?chunk|Failed to fetch dynamically imported module/i);

  await open(page, INTRO);
  await page.locator(`aside a[href="${CONCEPT}"]`).click();
  const retry = page.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible({ timeout: 15_000 });
  await expect(page.locator("body")).toContainText(/chunk|failed|error/i);
  expect(aborted.length, "the page's chunk was requested and aborted").toBeGreaterThan(0);

  failing = false;
  await retry.click();
  await expect(retry).toBeHidden();
  await expect(mainHeading(page)).toHaveText(/State management/i);
  await expect(page).toHaveURL(/concepts\/state-management\/?$/);
});
