// Every route the site promises, the not-found page, .html normalisation and
// the "|" title delimiter.
import {
  API_INDEX,
  CORE_API,
  INTRO,
  NOT_FOUND,
  RESOURCE_404,
  ROUTES,
  expect,
  hydrated,
  mainHeading,
  open,
  test,
} from "./site";

for (const route of ROUTES) {
  test(`route ${route.path} answers and renders its heading`, async ({ page }) => {
    const response = await open(page, route.path);
    expect(response?.status(), "HTTP status after static-hosting redirects").toBe(200);
    await expect(mainHeading(page)).toHaveText(route.heading);
    await expect(mainHeading(page)).not.toHaveText(/Page Not Found/i);
    await expect(page).toHaveTitle(route.title);
  });
}

for (const [kind, names] of Object.entries(CORE_API)) {
  test(`core API pages (${kind}): every page of the spec's list answers and renders its heading`, async ({ page }) => {
    test.setTimeout(30_000 + names.length * 3_000);
    for (const name of names) {
      const path = `/act-root/docs/api/act/src/${kind}/${name}`;
      const response = await page.goto(path);
      expect(response?.status(), `${path} HTTP status`).toBe(200);
      await expect(mainHeading(page), path).toHaveText(new RegExp(`(^|[^\\w])${name}([^\\w]|$)`));
      await expect(page, path).toHaveTitle(new RegExp(`${name}.* \\| Act$`));
    }
    await hydrated(page);
  });
}

test("the base path /act-root/ is a landing page linking to the intro and the API", async ({ page }) => {
  const response = await open(page, "/act-root/");
  expect(response?.status()).toBe(200);
  await expect(page.locator("h1").first()).toHaveText(/\bAct\b/);
  await expect(page.locator("body")).toContainText("Fluent Event Sourcing for TypeScript");
  await expect(page.locator("h1", { hasText: /Page Not Found/i })).toHaveCount(0);
  await expect(page.locator(":is(header, main) a[href='/act-root/docs/intro']").first()).toBeVisible();
  await expect(page.locator(":is(header, main) a[href='/act-root/docs/api/']").first()).toBeVisible();
});

test("the document title uses the | delimiter, server-rendered and after client navigation", async ({
  page,
  request,
}) => {
  for (const route of ROUTES) {
    const html = await (await request.get(route.path)).text();
    const title = /<title[^>]*>([^<]*)<\/title>/.exec(html)?.[1];
    expect(title, `${route.path} server-rendered <title>`).toMatch(/^.+ \| Act$/);
  }
  await open(page, INTRO);
  await expect(page).toHaveTitle(/^Introduction \| Act$/);
  await page.locator("nav.navbar").getByRole("link", { name: "API", exact: true }).click();
  await expect(page).toHaveURL(/\/act-root\/docs\/api\/?$/);
  await expect(page).toHaveTitle(/^.*API.* \| Act$/);
});

for (const path of ["/act-root/this-page-does-not-exist", NOT_FOUND]) {
  test(`an unknown path (${path}) shows the not-found page with HTTP 404`, async ({ page, consoleLog }) => {
    consoleLog.allow(RESOURCE_404); // the browser logs the document's own 404
    const response = await open(page, path);
    expect(response?.status()).toBe(404);
    await expect(mainHeading(page)).toHaveText(/Page Not Found/i);
    // The site's not-found page sends the reader on.
    await expect(page.locator("main").getByRole("link", { name: /introduction/i })).toHaveAttribute("href", INTRO);
    await expect(page.locator("main").getByRole("link", { name: /API/ })).toHaveAttribute("href", API_INDEX);
    // The "|" title delimiter holds here too.
    await expect(page).toHaveTitle(/^Page Not Found \| Act$/);
    // Client-side navigation to an unknown path shows it too.
    await page.locator("nav.navbar").getByRole("link", { name: "Docs", exact: true }).click();
    await expect(page).toHaveTitle(/^Introduction \| Act$/);
    await page.evaluate((to) => {
      window.history.pushState({}, "", to);
      window.dispatchEvent(new PopStateEvent("popstate"));
    }, path);
    await expect(mainHeading(page)).toHaveText(/Page Not Found/i);
  });
}

for (const variant of ["/act-root/docs/intro.html", "/act-root/docs/intro/index.html"]) {
  test(`${variant} is normalised to the plain path and ends on the intro page`, async ({ page, consoleLog }) => {
    // Static hosting may answer the .html path with its 404 page before the
    // site normalises it; that document-level 404 is not an app error.
    consoleLog.allow(RESOURCE_404);
    await page.goto(variant);
    await hydrated(page);
    await expect(page).toHaveURL(/\/act-root\/docs\/intro\/?$/);
    await expect(page).toHaveTitle(/^Introduction \| Act$/);
    await expect(mainHeading(page)).not.toHaveText(/Page Not Found/i);
    await expect(page.locator("article")).toBeVisible();
  });
}

// The fixture fails these tests on any console error; the walks cover the
// client-side transitions the hard loads above do not. One test per sidebar,
// so each has its own time (the Docs walk clicks through every guide).
for (const [sidebarName, start] of [
  ["Docs", INTRO],
  ["API", API_INDEX],
] as const) {
  test(`no console errors while a reader navigates client-side through the ${sidebarName} sidebar`, async ({
    page,
    consoleLog,
  }) => {
    test.setTimeout(180_000);
    await open(page, start);
    const sidebar = page.locator("aside.theme-doc-sidebar-container");
    // Open every collapsed category.
    for (let i = 0; i < 40; i++) {
      const closed = sidebar.locator(
        ".menu__list-item--collapsed > .menu__list-item-collapsible > :is(a, button)[aria-expanded='false'], .menu__list-item--collapsed > a.menu__link--sublist"
      );
      if ((await closed.count()) === 0) break;
      await closed.first().click();
    }
    const all = await sidebar
      .locator("a.menu__link[href^='/act-root/']")
      .evaluateAll((links) => [...new Set(links.map((a) => a.getAttribute("href") ?? ""))]);
    // Every Docs page; in the API, one page of each folder (kind) is enough:
    // every API page is loaded directly by the route tests.
    const folders = new Set<string>();
    const hrefs = all.filter((href) => {
      const folder = href.replace(/[^/]+\/?$/, "");
      if (start === API_INDEX && folders.has(folder)) return false;
      folders.add(folder);
      return true;
    });
    expect(hrefs.length, `${start}: sidebar links`).toBeGreaterThan(3);
    for (const href of hrefs) {
      await page.locator(`aside.theme-doc-sidebar-container a.menu__link[href="${href}"]`).first().click();
      await expect(page).toHaveURL(new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/$/, "")}/?$`));
      await expect(mainHeading(page), href).not.toHaveText(/Page Not Found/i);
    }
    expect(consoleLog.errors).toEqual([]);
  });
}
