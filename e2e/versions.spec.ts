// Docs versions and stability badges as a reader meets them. No release is
// cut yet, so the navbar's version item names the one version, Next, as a
// link to the page itself (the theme renders no menu for a single version); the
// menu of a site with a cut release is checked on a build of a copy of the
// site (scripts/site-versions.test.mjs, `npm run test:site-versions`).
import { API_PAGE, INTRO, expect, open, test } from "./site";

test("the navbar names the docs version: Next, linking the page itself, never the active item", async ({ page }) => {
  for (const path of [INTRO, API_PAGE]) {
    await open(page, path);
    const navbar = page.locator("nav.navbar");
    const version = navbar.getByRole("link", { name: "Next", exact: true });
    await expect(version, path).toBeVisible();
    // The theme links each version to the same page in it: here, this page.
    await expect(version, path).toHaveAttribute("href", path);
    await expect(version, path).not.toHaveClass(/navbar__link--active/);
    await expect(navbar.locator(".dropdown__menu a", { hasText: "Next" }), `${path}: no menu`).toHaveCount(0);
  }
});

test("an API page and an experimental guide show their stability as a badge that explains itself", async ({ page }) => {
  await open(page, API_PAGE);
  const stable = page.locator("article [data-stability]");
  await expect(stable).toHaveAttribute("data-stability", "stable");
  await expect(stable).toContainText("Stable");
  await expect(stable).toContainText("changes only as semantic versioning allows");

  await open(page, "/act-root/docs/guides/http");
  const experimental = page.locator("article [data-stability]");
  await expect(experimental).toHaveAttribute("data-stability", "experimental");
  await expect(experimental).toContainText("may change in any minor release");
  await experimental.getByRole("link", { name: "Experimental" }).click();
  await expect(page).toHaveURL(/\/act-root\/docs\/guides\/faq#stability-and-versioning$/);
});
