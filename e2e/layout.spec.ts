// Layout: sidebars, footer, repository link, announcement bar, the 996 px
// breakpoint, TOC levels, sidebar settings.
import {
  API_INDEX,
  API_PAGE,
  CONCEPT,
  INTRO,
  ROUTES,
  docSidebar,
  expect,
  hydrated,
  mainHeading,
  open,
  test,
} from "./site";

const DOCS_PAGES = ROUTES.map((r) => r.path).filter((p) => /\/docs\/(intro|concepts\/|examples\/)/.test(p));

test("the Docs sidebar is attached to the intro, concepts and examples pages", async ({ page }) => {
  test.setTimeout(90_000); // six full page loads; on a busy two-core machine each can take seconds
  for (const path of DOCS_PAGES) {
    await open(page, path);
    const sidebar = docSidebar(page);
    await expect(sidebar, path).toBeVisible();
    for (const target of DOCS_PAGES) {
      await expect(sidebar.locator(`a[href="${target}"]`), `${path}: sidebar links ${target}`).toHaveCount(1);
    }
    await expect(sidebar.locator(`a[href="${path}"]`), `${path}: current page marked`).toHaveAttribute(
      "aria-current",
      "page"
    );
    await expect(sidebar.locator('a[href^="/act-root/docs/api/"]'), `${path}: no API items`).toHaveCount(0);
    // The sidebar is the one titled Docs: its navbar item is the active one.
    await expect(page.locator("nav.navbar a.navbar__link--active"), path).toHaveText("Docs");
  }
});

test("the Docs sidebar's categories stay open when another one opens (no auto-collapse)", async ({ page }) => {
  await open(page, INTRO);
  const sidebar = docSidebar(page);
  const concepts = sidebar.getByRole("button", { name: "Concepts", exact: true });
  const examples = sidebar.getByRole("button", { name: "Examples", exact: true });
  for (const category of [concepts, examples]) {
    if ((await category.getAttribute("aria-expanded")) === "true") await category.click();
    await expect(category).toHaveAttribute("aria-expanded", "false");
  }
  await concepts.click();
  await expect(concepts).toHaveAttribute("aria-expanded", "true");
  await examples.click();
  await expect(examples).toHaveAttribute("aria-expanded", "true");
  await expect(concepts, "Concepts stays open after Examples opened").toHaveAttribute("aria-expanded", "true");
  await expect(sidebar.locator(`a[href="${CONCEPT}"]`)).toBeVisible();
  await expect(sidebar.locator('a[href="/act-root/docs/examples/wolfdesk"]')).toBeVisible();
});

test("the Docs sidebar is not hideable: no hide-sidebar button", async ({ page }) => {
  for (const path of [INTRO, CONCEPT]) {
    await open(page, path);
    await expect(docSidebar(page)).toBeVisible();
    await expect(page.getByRole("button", { name: /collapse sidebar|hide sidebar/i })).toHaveCount(0);
    await expect(page.locator("[title='Collapse sidebar'], [aria-label='Collapse sidebar']")).toHaveCount(0);
  }
});

test("API pages carry the API sidebar, not the Docs sidebar", async ({ page }) => {
  for (const path of [
    API_INDEX,
    "/act-root/docs/api/act/src/",
    API_PAGE,
    "/act-root/docs/api/act-pg/src/classes/PostgresStore",
  ]) {
    await open(page, path);
    const sidebar = docSidebar(page);
    await expect(sidebar, path).toBeVisible();
    await expect(sidebar.locator(`a[href="${INTRO}"]`), `${path}: no Docs items`).toHaveCount(0);
    await expect(sidebar.locator('a[href^="/act-root/docs/api/"]').first(), path).toBeVisible();
    await expect(page.locator("nav.navbar a.navbar__link--active"), path).toHaveText("API");
  }
});

test("a client-side move from a guide to the API shows the API sidebar and marks API in the navbar, and the Docs sidebar after moving back", async ({
  page,
}) => {
  await open(page, INTRO);
  await hydrated(page);
  await expect(page.locator("nav.navbar a.navbar__link--active")).toHaveText("Docs");
  await page.locator("nav.navbar").getByRole("link", { name: "API", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${API_INDEX}$`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.locator("nav.navbar a.navbar__link--active")).toHaveText("API");
  const sidebar = docSidebar(page);
  await expect(sidebar.locator(`a[href="${INTRO}"]`)).toHaveCount(0);
  await sidebar.locator('a[href^="/act-root/docs/api/act/src/"]').first().click();
  await expect(page).toHaveURL(/\/act-root\/docs\/api\/act\/src\//);
  await expect(docSidebar(page).locator(`a[href="${INTRO}"]`)).toHaveCount(0);
  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${INTRO}$`));
  await expect(docSidebar(page).locator(`a[href="${INTRO}"]`)).toHaveCount(1);
  await expect(page.locator("nav.navbar a.navbar__link--active")).toHaveText("Docs");
});

test("an address under the API path that is no API page shows the not-found page after a client-side move too", async ({
  page,
}) => {
  await open(page, INTRO);
  await hydrated(page);
  // A client-side move (the router follows the history, no page load).
  await page.evaluate(() => {
    (window as unknown as { movedWithoutLoad: boolean }).movedWithoutLoad = true;
    window.history.pushState({}, "", "/act-root/docs/api/act/src/classes/NoSuchClass");
    window.dispatchEvent(new PopStateEvent("popstate"));
  });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/Page Not Found/i);
  expect(await page.evaluate(() => (window as unknown as { movedWithoutLoad?: boolean }).movedWithoutLoad)).toBe(true);
  // And a real API page right after still renders.
  await page.evaluate(() => {
    window.history.pushState({}, "", "/act-root/docs/api/act/src/classes/Act");
    window.dispatchEvent(new PopStateEvent("popstate"));
  });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/Act/);
});

test("below the 996px breakpoint (995px) the navbar is a mobile menu that opens with the sidebar items", async ({
  page,
}) => {
  await page.setViewportSize({ width: 995, height: 800 });
  await open(page, CONCEPT);
  const toggle = page.getByRole("button", { name: "Toggle navigation bar" });
  await expect(toggle).toBeVisible();
  await expect(docSidebar(page)).toBeHidden();
  await toggle.click();
  const menu = page.locator(".navbar-sidebar");
  await expect(menu).toBeVisible();
  // On a doc page the menu opens on the doc's sidebar (the secondary panel).
  const sidebarPanel = menu.locator(".navbar-sidebar__items--show-secondary > .navbar-sidebar__item:nth-child(2)");
  await expect(sidebarPanel).toBeVisible();
  for (const target of DOCS_PAGES) {
    await expect(sidebarPanel.locator(`a.menu__link[href="${target}"]`), `mobile menu links ${target}`).toBeVisible();
  }
  await sidebarPanel.locator('a[href="/act-root/docs/examples/wolfdesk"]').click();
  await expect(page).toHaveURL(/\/docs\/examples\/wolfdesk\/?$/);
  await expect(menu).toBeHidden();
});

test("at 997px the navbar is the desktop navbar: no mobile menu button", async ({ page }) => {
  await page.setViewportSize({ width: 997, height: 800 });
  await open(page, CONCEPT);
  await expect(page.getByRole("button", { name: "Toggle navigation bar" })).toBeHidden();
  await expect(docSidebar(page)).toBeVisible();
  await expect(page.locator("nav.navbar").getByRole("link", { name: "Docs", exact: true })).toBeVisible();
});

test("the skip-to-content link is the first focusable element and moves focus to the main content", async ({
  page,
}) => {
  await open(page, CONCEPT);
  await page.keyboard.press("Tab");
  const focused = page.locator(":focus");
  await expect(focused).toHaveText(/skip to (main )?content/i);
  await page.evaluate(() => {
    const w = window as unknown as { focusTargets: string[] };
    w.focusTargets = [];
    document.addEventListener("focusin", (e) => w.focusTargets.push((e.target as Element).tagName));
  });
  await page.keyboard.press("Enter");
  // Docusaurus focuses <main> and drops its temporary tabindex, which
  // leaves <main> as the starting point of sequential focus navigation.
  expect(await page.evaluate(() => (window as unknown as { focusTargets: string[] }).focusTargets)).toContain("MAIN");
  await page.keyboard.press("Tab");
  const next = await page.evaluate(() => {
    const el = document.activeElement;
    return { inMain: Boolean(el?.closest("main")), inNavbar: Boolean(el?.closest("nav.navbar")), tag: el?.tagName };
  });
  expect(next, "the next Tab lands inside the main content").toMatchObject({ inMain: true, inNavbar: false });
});

test("the language dropdown lists English only", async ({ page }) => {
  await open(page, INTRO);
  const dropdown = page.locator("nav.navbar .navbar__item.dropdown").filter({ hasText: "English" });
  await expect(dropdown).toHaveCount(1);
  await dropdown.hover();
  const items = dropdown.locator(".dropdown__menu a");
  await expect(items).toHaveCount(1);
  await expect(items.first()).toHaveText("English");
  await expect(items.first()).toHaveAttribute("lang", "en");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.locator("html")).toHaveAttribute("dir", "ltr");
});

test("the navbar has a search slot", async ({ page }) => {
  await open(page, INTRO);
  const navbar = page.locator("nav.navbar");
  const search = navbar
    .getByRole("searchbox")
    .or(navbar.getByRole("button", { name: /search/i }))
    .or(navbar.locator("input[type='search'], input[placeholder*='earch']"));
  await expect(search.first()).toBeVisible();
  await search.first().focus();
  await expect(search.first()).toBeFocused();
});

test("the navbar links to the source repository outside the site", async ({ page, baseURL }) => {
  await open(page, INTRO);
  const link = page
    .locator("nav.navbar")
    .getByRole("link", { name: /repository|github|source/i })
    .first();
  await expect(link).toBeVisible();
  const href = (await link.getAttribute("href")) ?? "";
  const url = new URL(href, baseURL);
  expect(url.protocol).toBe("https:");
  expect(url.origin).not.toBe(new URL(baseURL!).origin);
  expect(
    url.pathname.split("/").filter(Boolean).length,
    `${href} names an owner and a repository`
  ).toBeGreaterThanOrEqual(2);
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", /noopener/);
});

test("the announcement bar can be dismissed and stays dismissed after a reload", async ({ page }) => {
  await open(page, INTRO);
  const bar = page.locator(".theme-announcement-bar");
  await expect(bar).toBeVisible();
  await bar.getByRole("button", { name: /close/i }).click();
  await expect(bar).toBeHidden();
  await page.reload();
  await expect(mainHeading(page)).toBeVisible();
  await expect(bar).toBeHidden();
  await open(page, CONCEPT);
  await expect(bar).toBeHidden();
});

test("the table of contents lists h2 and h3 headings and not h4", async ({ page }) => {
  // An API class page: the one kind of page with h4 headings (parameters, returns).
  await open(page, API_PAGE);
  const ids = async (selector: string) =>
    page.locator(selector).evaluateAll((els) => els.map((el) => el.id).filter(Boolean));
  const h2h3 = await ids("article :is(h2, h3)[id]");
  const h4 = await ids("article h4[id]");
  expect(h2h3.length, "the page has h2/h3 headings").toBeGreaterThan(0);
  expect(h4.length, "the page has h4 headings").toBeGreaterThan(0);
  const toc = await page
    .locator(".theme-doc-toc-desktop a.table-of-contents__link")
    .evaluateAll((els) => els.map((el) => decodeURIComponent((el.getAttribute("href") ?? "").replace(/^#/, ""))));
  expect(toc).toEqual(h2h3);
  for (const id of h4) expect(toc, `h4 #${id} is not in the TOC`).not.toContain(id);
});

test("the footer links to the introduction and states copyright 2025", async ({ page }) => {
  await open(page, API_INDEX);
  const footer = page.locator("footer");
  await expect(footer).toContainText(/Copyright © 2025/);
  await expect(footer).toContainText(/Built with Docusaurus/);
  const intro = footer.getByRole("link", { name: "Introduction", exact: true });
  await expect(intro).toHaveAttribute("href", INTRO);
  await intro.click();
  await expect(page).toHaveURL(/\/act-root\/docs\/intro\/?$/);
  await expect(page).toHaveTitle(/^Introduction \| Act$/);
});
