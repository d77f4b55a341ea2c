// Docs for AI tools (llms.txt and per-page Markdown): llms.txt, llms-full.txt, a Markdown twin of each
// guide, and the "Copy page as Markdown" button.
import { ROUTES, expect, open, test } from "./site";

/** The guide pages of the spec's route table (intro, concepts, examples). */
const GUIDES = ROUTES.map((r) => r.path).filter((p) => /\/docs\/(intro|concepts\/|examples\/)/.test(p));

test("AI docs: llms.txt lists every guide with a summary, and the API pages", async ({ request }) => {
  const response = await request.get("/act-root/llms.txt");
  expect(response.status()).toBe(200);
  const text = await response.text();
  expect(text).toMatch(/^# Act\n/);
  for (const path of GUIDES) {
    // "- [Title](https://…/docs/x.md): one-line description"
    expect(text, path).toMatch(new RegExp(`^- \\[[^\\]]+\\]\\(https?://[^)]*${path}\\.md\\): \\S.*$`, "m"));
  }
  expect(text).toContain("/act-root/docs/api/act/src/classes/Act)");
  expect(text).toContain("/act-root/docs/api/act/src/type-aliases/Snapshot)");
});

test("AI docs: llms-full.txt holds every guide in full", async ({ request }) => {
  const response = await request.get("/act-root/llms-full.txt");
  expect(response.status()).toBe(200);
  const text = await response.text();
  for (const path of GUIDES) {
    // Each guide starts with a marker naming its page, then its Markdown.
    expect(text, path).toMatch(new RegExp(`<!-- https?://[^ ]*${path} -->\n\n# \\S`));
  }
  // The calculator's code is read from the package, not left as an MDX expression.
  expect(text).toContain('export const Calculator = state("Calculator"');
  expect(text).not.toMatch(/^import \w+ from '@theme\//m);
});

test("AI docs: every guide has a Markdown twin next to its page", async ({ request }) => {
  for (const path of GUIDES) {
    const response = await request.get(`${path}.md`);
    expect(response.status(), path).toBe(200);
    const text = await response.text();
    expect(text, path).toMatch(/^# \S/);
    expect(text, path).not.toMatch(/^---$/m); // no front matter left
    expect(text, path).not.toMatch(/<\/?(Tabs|TabItem|CodeBlock)\b/);
  }
});

test("AI docs: 'Copy page as Markdown' puts the page's Markdown on the clipboard (guides only)", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const [guide] = GUIDES;
  await open(page, guide);
  await page.getByRole("button", { name: "Copy page as Markdown" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const twin = await (await page.request.get(`${guide}.md`)).text();
  expect(copied).toBe(twin);

  await open(page, "/act-root/docs/api/act/src/classes/Act");
  await expect(page.getByRole("button", { name: "Copy page as Markdown" })).toHaveCount(0);
});

test("discovery: social card, canonical URL, sitemap and robots.txt", async ({ page, request }) => {
  await open(page, "/act-root/docs/intro");
  const meta = (selector: string) => page.locator(`head meta[${selector}]`).first().getAttribute("content");
  expect(await meta('property="og:image"')).toMatch(/\/act-root\/img\/social-card\.png$/);
  expect(await meta('name="twitter:card"')).toBe("summary_large_image");
  expect(await meta('property="og:title"')).toMatch(/Introduction/);
  expect(await meta('property="og:description"')).toMatch(/\S/);
  expect(await page.locator('head link[rel="canonical"]').getAttribute("href")).toMatch(/\/act-root\/docs\/intro$/);
  const card = await request.get("/act-root/img/social-card.png");
  expect(card.status()).toBe(200);
  const sitemap = await (await request.get("/act-root/sitemap.xml")).text();
  expect(sitemap).toContain("/act-root/docs/intro</loc>");
  const robots = await request.get("/act-root/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toMatch(/^Sitemap: https?:\/\/\S+\/act-root\/sitemap\.xml$/m);
});
