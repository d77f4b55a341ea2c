// The navbar search box (the local search plugin's own bar): the shortcut
// focuses it from the first moment the page is live, a query finds its page,
// and the not-found page's search button hands over to it.
import type { Page } from "@playwright/test";
import { INTRO, NOT_FOUND, RESOURCE_404, expect, open, test } from "./site";

function searchBox(page: Page) {
  return page.locator('nav.navbar input[aria-label="Search"]');
}

/** The suggestions for "snapshot" list the state-management page: the query was searched whole. */
async function expectSnapshotHit(page: Page) {
  const options = page.locator("nav.navbar").getByRole("listbox").getByRole("option");
  await expect(options.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });
}

test("the search box is in the server's HTML, with its label and shortcut hint", async ({ page }) => {
  await page.goto(INTRO, { waitUntil: "commit" });
  await expect(searchBox(page)).toBeVisible();
  await expect(page.locator("nav.navbar .navbar__search kbd").first()).toBeVisible();
});

test("Ctrl+K right after load focuses the box, and search works", async ({ page }) => {
  await open(page, INTRO);
  await page.locator("body").press("Control+k");
  await expect(searchBox(page)).toBeFocused();
  await searchBox(page).pressSequentially("snapshot");
  await expectSnapshotHit(page);
});

test("the not-found page's search button focuses the box", async ({ page, consoleLog }) => {
  consoleLog.allow(RESOURCE_404);
  await open(page, NOT_FOUND);
  await page.getByRole("button", { name: "Search the documentation" }).click();
  await expect(searchBox(page)).toBeFocused();
});
