/**
 * The page at real sizes (e2e/sizes.ts): 6,001 reaction streams with one
 * blocked far down by name, a stream of 40,000 events, a stream of one event
 * and a stream name of 256 characters.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { open, origin } from "./helpers.js";
import { BLOCKED, LONG, LONG_NAME, SINGLE } from "./sizes.js";

/** Nothing sticks out of the window sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(client);
}

test("reactions: the blocked stream comes first among 6,001, with totals, filters, pages and linked watermarks", async ({
  page,
}) => {
  await open(page, "sizes", "#/reactions");
  await expect(page.getByTestId("totals")).toHaveText("6,001 reaction streams: 1 blocked, 2 leased, 3,001 with lag.");
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(51); // the header and a page of 50
  await expect(rows.nth(1)).toContainText(BLOCKED);
  await expect(rows.nth(1)).toContainText("Blocked: Payment gateway refused the refund");
  await expect(page.getByTestId("range")).toHaveText("1–50 of 6,001 streams, blocked first.");
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(page.getByTestId("range")).toHaveText("51–100 of 6,001 streams, blocked first.");
  await expect(rows.nth(1)).toContainText("reaction-00048"); // after the blocked one, the long name and 00000–00047
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(rows.nth(1)).toContainText(BLOCKED);
  // By a part of the name, then by state.
  await page.getByLabel("Name contains").fill("0500");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("range")).toHaveText("1–11 of 11 streams that match, blocked first.");
  await page.getByLabel("Name contains").fill("");
  await page.getByLabel("State").selectOption("leased");
  await expect(page.getByTestId("range")).toHaveText("1–2 of 2 streams that match, blocked first.");
  await expectAccessible(page);
  // A watermark is a link to the event it points at.
  await page.getByLabel("State").selectOption("all");
  await page.getByLabel("Name contains").fill("reaction-00001");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(rows).toHaveCount(2);
  await rows.nth(1).getByRole("link", { name: "40000" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Opened #40000");
});

test("the timeline of a 40,000-event stream reaches its newest event at once", async ({ page }) => {
  await open(page, "sizes", `#/stream/${LONG}`);
  await expect(page.getByText("40,000 events, the last at")).toBeVisible();
  const list = page.getByRole("listbox", { name: `Events of ${LONG}` });
  await expect(list.getByRole("option").first()).toContainText("v0");
  await list.focus();
  await page.keyboard.press("End");
  const newest = list.getByRole("option", { name: /^v39999 / });
  await expect(newest).toBeVisible({ timeout: 2_000 });
  await expect(newest).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("button", { name: "Newest first" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByRole("region", { name: "Event data" })).toContainText('"n": 39999');
  // And back to the oldest.
  await page.getByRole("button", { name: "Oldest first" }).click();
  await expect(list.getByRole("option").first()).toContainText("v0");
});

test("a stream name of 256 characters is cut with its whole name in a title, and breaks no layout", async ({
  page,
}) => {
  await open(page, "sizes", "#/?prefix=order-");
  const link = page.getByRole("link", { name: LONG_NAME });
  await expect(link).toBeVisible();
  await expect(link.locator("[title]")).toHaveAttribute("title", LONG_NAME);
  await expectNoSidewaysScroll(page);
  await link.click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(LONG_NAME);
  await expectNoSidewaysScroll(page);
  // A payload the server cut: its "Show all" button is whole, inside the event's panel.
  await page.getByRole("option", { name: /^v0 / }).click();
  const expand = page.getByRole("button", { name: /Show all data/ });
  await expect(expand).toBeVisible();
  const button = (await expand.boundingBox())!;
  const panel = (await page.getByRole("complementary", { name: "Selected event" }).boundingBox())!;
  expect(button.x).toBeGreaterThanOrEqual(panel.x);
  expect(button.x + button.width).toBeLessThanOrEqual(panel.x + panel.width);
  expect(button.x + button.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  await page.getByRole("option", { name: /^v1 / }).click();
  await expectNoSidewaysScroll(page);
  await page.goto(`${origin("sizes")}/#/reactions`);
  await page.getByLabel("Name contains").fill("order-x");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(2);
  await expectNoSidewaysScroll(page);
  await page.goto(`${origin("sizes")}/#/correlation/long-name`);
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(3);
  await expectNoSidewaysScroll(page);
});

test("counts in words that agree: 1 event, 2 events", async ({ page }) => {
  await open(page, "sizes", `#/stream/${SINGLE}`);
  await expect(page.getByText(/^1 event, the last at/)).toBeVisible();
  await expect(page.getByText(/1 events/)).toHaveCount(0);
  await page.goto(`${origin("sizes")}/#/stream/${encodeURIComponent(LONG_NAME)}`);
  await expect(page.getByText(/^2 events, the last at/)).toBeVisible();
});

test("one alert per failure, however many parts of the page failed with it", async ({ page }) => {
  await open(page, "sizes", "#/stream/no-such-stream");
  await expect(page.getByRole("alert")).toHaveText('No stream named "no-such-stream": it has no events.');
  await expect(page.getByRole("alert")).toHaveCount(1);
  await open(page, "down");
  await expect(page.getByRole("alert")).toHaveCount(1);
  await expect(page.getByRole("alert")).toContainText("The store is not answering");
});

test("a correlation search without an index says so, and goes on from where it stopped", async ({ page }) => {
  await open(page, "sizes", "#/correlation/long-7");
  await expect(page.getByTestId("search-progress")).toContainText("No index on the correlation id");
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(101);
  await page.getByRole("button", { name: "Search further" }).click();
  await expect(rows).toHaveCount(201);
});

/** No serious or critical accessibility violations on the page as it is. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}
