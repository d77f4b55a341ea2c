// Search that works offline: the local search in the navbar slot, on the production build under
// /act-root/, indexing guides and API pages, fetched only once the reader
// starts searching.
import type { Locator, Page, Request } from "@playwright/test";
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
  await expect
    .poll(() => requests.filter(isSearchIndex).length, { message: "index fetched on focus" })
    .toBeGreaterThan(0);
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

/**
 * Walks the suggestions down with the keyboard until the selected one
 * contains `text` (ten steps at most). One step per press: each waits for the
 * selection to move, so a slow re-render never lets the next press skip past it.
 */
async function walkTo(page: Page, box: Locator, text: string) {
  const { selected } = suggestions(page);
  const selectedId = async () => ((await selected.count()) ? await selected.first().getAttribute("id") : null);
  for (let i = 0; i < 10 && !(await selected.textContent())?.includes(text); i++) {
    const before = await selectedId();
    await box.press("ArrowDown");
    await expect.poll(selectedId).not.toBe(before);
  }
  await expect(selected).toContainText(text);
}

test("search: typing 'snapshot' lists the state-management page; the Snapshot type page is found by its description, and Enter opens it", async ({
  page,
}) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("snapshot", { delay: 30 });
  const { options } = suggestions(page);
  // Each hit names its page: "Docs › Concepts › State management".
  await expect(options.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });

  // Words of the type's description find its page; the keyboard walks down to it and Enter opens it.
  // Entered at once: typed key by key, each prefix starts a search of its own, and on a loaded
  // machine an earlier one's results can land after the walk began and reorder the list under it.
  await box.fill("folded state");
  await expect(options.filter({ hasText: "Type Alias: Snapshot" }).first()).toBeVisible({ timeout: 15_000 });
  await walkTo(page, box, "Type Alias: Snapshot");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/act-root\/docs\/api\/act\/src\/type-aliases\/Snapshot(\?|#|$)/);
  await expect(page.locator("article h1").first()).toContainText("Snapshot");
});

test("search: a result lands on its heading", async ({ page }) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("snapshot", { delay: 30 });
  const { options } = suggestions(page);
  // The "Snapshots" heading of the state-management page is among the hits; the keyboard walks to it.
  await expect(options.filter({ hasText: "State management" }).first()).toBeVisible({ timeout: 15_000 });
  await walkTo(page, box, "State management");
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${CONCEPT}(\\?[^#]*)?#snapshots$`));
  await expect(page.locator("article h2#snapshots")).toBeInViewport();
});

test("search: 'snapshot' puts the Snapshots section of State management first, above the API's fields", async ({
  page,
}) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  // Type once the autocomplete has taken the box over (the index is loaded on focus).
  await expect(box).toHaveAttribute("role", "combobox", { timeout: 15_000 });
  await box.pressSequentially("snapshot", { delay: 30 });
  const { options, selected } = suggestions(page);
  await expect(options.first()).toBeVisible({ timeout: 15_000 });
  // The first hit is the concept's section, selected as the list opens: Enter opens it at its heading.
  await expect(options.first()).toContainText("State management");
  await expect(options.first()).toContainText("Snapshots");
  await expect(selected).toContainText("State management");
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${CONCEPT}(\\?[^#]*)?#snapshots$`));
});

test("search: a property's name still finds its API page", async ({ page }) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await expect(box).toHaveAttribute("role", "combobox", { timeout: 15_000 });
  await box.pressSequentially("leaseMillis", { delay: 30 });
  const { options } = suggestions(page);
  await expect(options.filter({ hasText: /Type Alias: (Drain|Consumer)Options/ }).first()).toBeVisible({
    timeout: 15_000,
  });
});

test("search: API pages are indexed (a class name finds its page)", async ({ page }) => {
  await open(page, CONCEPT);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("PostgresStore", { delay: 30 });
  const { options } = suggestions(page);
  await expect(options.filter({ hasText: "Class: PostgresStore" }).first()).toBeVisible({ timeout: 15_000 });
});

/** The path line of each suggestion ("API › @act-root/act › Type Aliases › …"). */
function hitPaths(page: Page) {
  return page.locator("nav.navbar").getByRole("listbox").locator('[class*="hitPath"]');
}

test("search: a generic API title reads as written in the result path (Snapshot<S, E>)", async ({ page }) => {
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  // Words of the Snapshot type's description: the hit's path ends with the
  // page title, "Type Alias: Snapshot<S, E>".
  await box.pressSequentially("folded state", { delay: 30 });
  const paths = hitPaths(page);
  await expect(paths.filter({ hasText: "Snapshot<S, E>" }).first()).toBeVisible({ timeout: 15_000 });
  await expect(paths.filter({ hasText: "Type Alias: Snapshot<S, E>" }).first()).toContainText(
    "API › @act-root/act › Type Aliases › Type Alias: Snapshot<S, E>"
  );
  // `<S, E>` was not read as a tag (an <s> element would strike the rest out).
  await expect(page.locator("nav.navbar").getByRole("listbox").locator("s")).toHaveCount(0);
});

test("search: a heading with markup is shown as text in results, never parsed as HTML", async ({ page }) => {
  const markup = `Heading <img src="x" onerror="window.__searchXss = 1"><b>bold</b>`;
  // Serve the real index with the Snapshot page's section heading replaced by
  // markup, as a heading written with HTML in it would be indexed.
  await page.route(/\/act-root\/search-index[^/]*\.json(\?.*)?$/, async (route) => {
    const response = await route.fetch();
    const parts = (await response.json()) as { documents: Record<string, unknown>[] }[];
    let changed = 0;
    for (const part of parts)
      for (const doc of part.documents)
        if (typeof doc.s === "string" && String(doc.u).endsWith("/type-aliases/Snapshot")) {
          doc.s = markup;
          changed++;
        }
    expect(changed, "Snapshot section documents in the index").toBeGreaterThan(0);
    await route.fulfill({ response, json: parts });
  });
  await open(page, INTRO);
  const box = searchBox(page);
  await box.click();
  await box.pressSequentially("folded state", { delay: 30 });
  const listbox = page.locator("nav.navbar").getByRole("listbox");
  await expect(hitPaths(page).filter({ hasText: markup }).first()).toBeVisible({ timeout: 15_000 });
  await expect(listbox.locator("img")).toHaveCount(0);
  await expect(listbox.locator("b")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __searchXss?: number }).__searchXss)).toBeUndefined();
});
