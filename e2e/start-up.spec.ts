// Start-up: pages paint from their HTML without waiting for code, load the
// code after the first paint, and a press made before the code has arrived
// still does what it says once it has; what the server's HTML already
// carries (diagrams, highlighted code).
import type { Browser, Page } from "@playwright/test";
import { CONCEPT, EXAMPLE, INTRO, MAIN_BUNDLE, expect, holdRequests, hydrated, mainHeading, test } from "./site";

const toggle = (page: Page) => page.locator("nav.navbar").getByRole("button", { name: /dark and light mode/i });

/**
 * What clicks on the colour-mode toggle do on a live page, in a browser
 * context of its own (the mode is stored): the toggle's label before the
 * first click and after each of `clicks`, with the page's `data-theme`.
 */
async function referenceClicks(browser: Browser, clicks: number) {
  const reference = await browser.newContext();
  const live = await reference.newPage();
  await live.goto(INTRO);
  await hydrated(live);
  const labels = [await toggle(live).getAttribute("aria-label")];
  const themes = [await live.locator("html").getAttribute("data-theme")];
  for (let i = 0; i < clicks; i++) {
    await toggle(live).click();
    await expect(toggle(live)).not.toHaveAttribute("aria-label", labels[i] ?? "");
    labels.push(await toggle(live).getAttribute("aria-label"));
    themes.push(await live.locator("html").getAttribute("data-theme"));
  }
  await reference.close();
  return { labels, themes };
}

test("the page is complete and readable while its code has not arrived", async ({ page }) => {
  const held = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(INTRO, { waitUntil: "load" });
  await expect(mainHeading(page)).toBeVisible();
  await expect(page.locator("article p").first()).toBeVisible();
  await expect(page.locator("aside nav.menu")).toBeVisible();
  // The code is asked for after the load event, once the page is idle.
  await expect.poll(held.requested, { message: "the main bundle is requested after load" }).toBe(true);
  await held.release();
  await hydrated(page);
});

test("a click on the colour-mode toggle before the code has arrived does what a click after it does", async ({
  browser,
  page,
}) => {
  // What one click does on a live page: the toggle's next mode.
  const { labels, themes } = await referenceClicks(browser, 1);

  const held = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(INTRO, { waitUntil: "load" });
  // The server renders the toggle disabled; a reader's click lands anyway.
  await toggle(page).click({ force: true });
  await expect.poll(held.requested).toBe(true);
  await held.release();
  await hydrated(page);
  await expect(toggle(page)).toHaveAttribute("aria-label", labels[1] ?? "");
  await expect(page.locator("html")).toHaveAttribute("data-theme", themes[1] ?? "");
});

test("every click on the colour-mode toggle while the page starts counts once: before the code, during hydration, after", async ({
  browser,
  page,
}) => {
  // The toggle's labels on a live page, click after click (it cycles).
  const { labels } = await referenceClicks(browser, 3);
  expect(labels[3]).toBe(labels[0]);

  const held = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(INTRO, { waitUntil: "load" });
  let clicks = 0;
  await toggle(page).click({ force: true });
  clicks++;
  await expect.poll(held.requested).toBe(true);
  await held.release();
  // Click on while the code arrives and hydrates, until the page is live.
  while (!(await page.locator("html[data-live]").count())) {
    await toggle(page).click({ force: true });
    clicks++;
  }
  await toggle(page).click();
  clicks++;
  await expect(toggle(page)).toHaveAttribute("aria-label", labels[clicks % 3] ?? "");
  // The label cycles, so a late extra replay could pass through it: it must stay.
  await page.waitForTimeout(1000);
  await expect(toggle(page)).toHaveAttribute("aria-label", labels[clicks % 3] ?? "", { timeout: 1 });
  expect(clicks).toBeGreaterThan(2);
});

test("Ctrl+K pressed before the code has arrived focuses the search box once it has", async ({ page }) => {
  const held = await holdRequests(page, MAIN_BUNDLE);
  await page.goto(INTRO, { waitUntil: "load" });
  await page.locator("body").press("Control+k");
  await expect.poll(held.requested).toBe(true);
  await held.release();
  await expect(page.locator('nav.navbar input[aria-label="Search"]')).toBeFocused();
});

test("diagrams are SVG in the HTML: one per colour mode, named for screen readers, text selectable, no Mermaid loaded", async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  await page.goto(CONCEPT);
  await hydrated(page);
  const light = page.locator(".act-diagram__light svg").first();
  const dark = page.locator(".act-diagram__dark svg").first();
  await expect(light).toBeVisible();
  await expect(dark).toBeHidden();
  const labelledBy = await light.getAttribute("aria-labelledby");
  expect(labelledBy).toBeTruthy();
  await expect(page.locator(`[id="${labelledBy}"]`)).toHaveText("One action, from request to state");
  expect(await light.locator("desc").textContent()).toMatch(/validates the payload/);
  // Selectable text: the labels are text, not pictures of text.
  const text = light.locator("text").filter({ hasText: "Act app" }).first();
  await expect(text).toBeVisible();
  expect(await text.evaluate((node) => getComputedStyle(node).userSelect)).not.toBe("none");

  // The toggle cycles light → dark → system; click until dark.
  for (let i = 0; i < 3 && (await page.locator("html").getAttribute("data-theme")) !== "dark"; i++) {
    const label = await toggle(page).getAttribute("aria-label");
    await toggle(page).click();
    await expect(toggle(page)).not.toHaveAttribute("aria-label", label ?? "");
  }
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(dark).toBeVisible();
  await expect(light).toBeHidden();
  // Arrow heads resolve inside the visible copy, not the hidden one.
  const marker = await dark.evaluate((svg) => svg.querySelector("[marker-end]")?.getAttribute("marker-end") ?? "");
  expect(marker).toMatch(/^url\(#diagram-[0-9a-f]+-dark/);

  for (const url of scripts) {
    const body = await (await page.request.get(url)).text();
    expect(body, `${url} carries Mermaid`).not.toMatch(/mermaidAPI|mermaid\.initialize/);
  }
});

/** True when a script carries Prism's grammars. */
const PRISM = /languages\.insertBefore\(/;

test("a code block keeps the server's highlighted HTML, without Prism, and its copy button works from the first tap", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  await page.goto(CONCEPT);
  await hydrated(page);
  const block = page
    .locator(".theme-code-block")
    .filter({ has: page.locator(".token-line span[style]") })
    .first();
  expect(await block.locator(".token-line span[style]").count()).toBeGreaterThan(10);
  await block.scrollIntoViewIfNeeded();
  // The block's lines as shown (its rendered text has a blank line per line break).
  const lines = (text: string) => text.split("\n").filter((line) => line.trim());
  const code = lines(await block.locator("pre").innerText());
  await block.getByRole("button", { name: /copy/i }).tap();
  await expect(block.getByRole("button", { name: /copied/i })).toBeVisible();
  expect(lines(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(code);
  for (const url of scripts)
    expect(await (await page.request.get(url)).text(), `${url} carries Prism`).not.toMatch(PRISM);
  await context.close();
});

test("a long listing comes as plain text under its title, and is highlighted, with its buttons, near the screen", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  const response = await page.goto(EXAMPLE);
  // The server's HTML holds the CLI file's listing, its title and its text, uncoloured.
  const html = (await response?.text()) ?? "";
  const title = "packages/calculator/src/cli.ts";
  const at = html.indexOf(title);
  expect(at).toBeGreaterThan(0);
  expect(html.slice(at, html.indexOf("</pre>", at))).not.toContain("--tk-keyword-c");
  await hydrated(page);
  const listing = page.locator("[data-highlight]").filter({ hasText: title });
  await expect(listing).toHaveAttribute("data-highlight", "on-demand");
  await expect(listing).toContainText("import");
  await listing.scrollIntoViewIfNeeded();
  await expect(listing).toHaveAttribute("data-highlight", "done");
  await expect(listing.locator('.token-line span[style*="--tk-keyword-c"]').first()).toBeVisible();
  await listing.getByRole("button", { name: /copy/i }).tap();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("import");
  await context.close();
});

test("code colours follow the colour mode without rendering the block again", async ({ page }) => {
  await page.goto(CONCEPT);
  await hydrated(page);
  const keyword = page.locator('.theme-code-block span[style*="--tk-keyword-c"]').first();
  const light = await keyword.evaluate((node) => getComputedStyle(node).color);
  await keyword.evaluate((node) => node.setAttribute("data-same-node", ""));
  for (let i = 0; i < 3 && (await page.locator("html").getAttribute("data-theme")) !== "dark"; i++) {
    const label = await toggle(page).getAttribute("aria-label");
    await toggle(page).click();
    await expect(toggle(page)).not.toHaveAttribute("aria-label", label ?? "");
  }
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await keyword.evaluate((node) => getComputedStyle(node).color)).not.toBe(light);
  await expect(page.locator("[data-same-node]")).toHaveCount(1);
});

test("after a client-side navigation a page's code blocks are highlighted, their buttons work", async ({ page }) => {
  await page.goto(INTRO);
  await hydrated(page);
  await page.locator("aside nav.menu").getByRole("link", { name: "State management" }).click();
  await expect(page).toHaveURL(new RegExp(`${CONCEPT}$`));
  const block = page
    .locator(".theme-code-block")
    .filter({ has: page.locator(".token-line") })
    .first();
  await expect(block.locator('span[style*="--tk-"]').first()).toBeVisible();
  await block.hover();
  await expect(block.getByRole("button", { name: /copy/i })).toBeVisible();
});
