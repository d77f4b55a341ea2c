// The test harness itself: e2e/server.mjs must answer like GitHub Pages,
// or the routing tests would prove nothing about the deployed site.
import { expect, test } from "./site";

test("harness: the static server answers like GitHub Pages", async ({ request }) => {
  const get = (path: string) => request.get(path, { maxRedirects: 0 });

  const folder = await get("/act-root/docs/intro");
  expect(folder.status(), "/x with only x/index.html redirects").toBe(301);
  expect(folder.headers().location).toBe("/act-root/docs/intro/");

  const index = await get("/act-root/docs/intro/");
  expect(index.status()).toBe(200);
  expect(index.headers()["content-type"]).toMatch(/^text\/html/);
  expect(await index.text()).toContain("<title");

  expect((await get("/act-root/docs/intro/index.html")).status()).toBe(200);

  const base = await get("/act-root");
  expect(base.status()).toBe(301);
  expect(base.headers().location).toBe("/act-root/");
  expect((await get("/act-root/")).status()).toBe(200);

  for (const path of ["/act-root/docs/intro.html", "/act-root/nope", "/act-root/docs/intro/nope/", "/", "/act-root/../package.json", "/act-root/%2e%2e/package.json"]) {
    const response = await get(path);
    expect(response.status(), path).toBe(404);
    expect(await response.text(), `${path} gets the site's 404.html`).toMatch(/Page Not Found/);
  }

  const sitemap = await get("/act-root/sitemap.xml");
  expect(sitemap.status()).toBe(200);
  expect(sitemap.headers()["content-type"]).toMatch(/xml/);
});
