// Issue 6, item 1 (site.md "Beyond the spec": search that works offline):
// the local search in the navbar slot, on the production build under
// /act-root/, indexing guides and API pages, fetched only once the reader
// starts searching.
import type { Page, Request } from "@playwright/test";
import { CONCEPT, INTRO, expect, open, test } from "./site";

/** The search index and its worker/autocomplete code (hashed file names). */
const isSearchIndex = (url: string) => /\/act-root\/search-index[^/]*\.json(\?|$)/.test(url);

function searchBox(page: Page) {
  // A textbox until the autocomplete takes it over and makes it a combobox.
  return page.locator('nav.navbar input[aria-label="Search"]');
}

test("search: the index is not fetched on page load, only once the reader starts searching", async ({ page }) => {
  const requests: string[] = [];
  page.on("request", (request: Request) => requests.push(request.url()));
  await open(page, INTRO);
  await page.waitForLoadState("networkidle");
  expect(requests.filter(isSearchIndex), "search index requests on page load").toEqual([]);

  await searchBox(page).focus();
  await expect.poll(() => requests.filter(isSearchIndex).length, { message: "index fetched on focus" }).toBeGreaterThan(0);
  // Same origin, under the base path.
  for (const url of requests.filter(isSearchIndex)) expect(new URL(url).pathname).toMatch(/^\/act-root\//);
});

test("search: Ctrl+K focuses the search box", async ({ page }) => {
  await open(page, INTRO);
  await expect(searchBox(page)).not.toBeFocused();
  await page.locator("body").press("Control+k");
  await expect(searchBox(page)).toBeFocused();
});

/** The suggestions under the search box, and the one the keyboard is on. */
function suggestions(page: Page) {
  const options = page.locator("nav.navbar").getByRole("listbox").getByRole("option");
  return { options, selected: options.and(page.locator('[aria-selected="true"]')) };
}

test("search: typing 'snapshot' lists the state-management page and the Snapshot type page, and Enter opens it", async ({ page }) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("snapshot", { delay: 30 });
  const { options, selected } = suggestions(page);
  // Each hit names its page: "Docs › Concepts › State management".
  await expect(options.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });
  const snapshotType = options.filter({ hasText: "Type Alias: Snapshot" });
  await expect(snapshotType.first()).toBeVisible();

  // The keyboard walks down to the Snapshot type page; Enter opens it.
  for (let i = 0; i < 10 && !(await selected.textContent())?.includes("Type Alias: Snapshot"); i++) {
    await box.press("ArrowDown");
  }
  await expect(selected).toContainText("Type Alias: Snapshot");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/act-root\/docs\/api\/act\/src\/type-aliases\/Snapshot(\?|#|$)/);
  await expect(page.locator("article h1").first()).toContainText("Snapshot");
});

test("search: a result lands on its heading", async ({ page }) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("snapshot", { delay: 30 });
  const { options, selected } = suggestions(page);
  // The first hit is the "Snapshots" heading of the state-management page.
  await expect(options.first()).toContainText("State management", { timeout: 15_000 });
  await expect(selected).toHaveCount(1);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${CONCEPT}(\\?[^#]*)?#snapshots$`));
  await expect(page.locator("article h2#snapshots")).toBeInViewport();
});

test("search: API pages are indexed (a class name finds its page)", async ({ page }) => {
  await open(page, CONCEPT);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("PostgresStore", { delay: 30 });
  const { options } = suggestions(page);
  await expect(options.filter({ hasText: "Class: PostgresStore" }).first()).toBeVisible({ timeout: 15_000 });
});
