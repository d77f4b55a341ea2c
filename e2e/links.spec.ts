// Broken links and anchors only warn at build time, so the built site is
// crawled here: it must have no broken internal link or anchor.
import { API_INDEX, BASE, INTRO, expect, test } from "./site";

type Page = { status: number; ids: Set<string>; links: string[] };

test("crawl from the intro and the API index: every internal link answers and every anchor exists", async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const origin = new URL(baseURL!).origin;
  const pages = new Map<string, Promise<Page>>();
  const problems: string[] = [];
  const seenLinks = new Set<string>();

  const load = (path: string): Promise<Page> => {
    let loaded = pages.get(path);
    if (!loaded) {
      loaded = request.get(path).then(async (response) => {
        const finalUrl = new URL(response.url());
        const html = response.headers()["content-type"]?.includes("text/html") ? await response.text() : "";
        // The browser parses the served HTML (no regular expressions on markup).
        const parsed = await page.evaluate((source) => {
          const doc = new DOMParser().parseFromString(source, "text/html");
          return {
            ids: [...doc.querySelectorAll("[id], a[name]")].map((el) => el.id || el.getAttribute("name") || ""),
            hrefs: [...doc.querySelectorAll("a[href]")].map((a) => a.getAttribute("href") ?? ""),
          };
        }, html);
        const ids = new Set(parsed.ids);
        const links = parsed.hrefs
          .map((href) => new URL(href, finalUrl))
          .filter((url) => url.origin === origin)
          .map((url) => url.pathname + url.hash);
        return { status: response.status(), ids, links };
      });
      pages.set(path, loaded);
    }
    return loaded;
  };

  const queue: { from: string; link: string }[] = [INTRO, API_INDEX].map((link) => ({ from: "(start)", link }));
  while (queue.length) {
    const batch = queue.splice(0, 8);
    await Promise.all(
      batch.map(async ({ from, link }) => {
        const [path, hash] = [link.split("#")[0], link.includes("#") ? decodeURIComponent(link.split("#")[1]) : ""];
        if (!path.startsWith(BASE)) {
          problems.push(`${from} → ${link}: outside the base path ${BASE}`);
          return;
        }
        const target = await load(path);
        if (target.status !== 200) problems.push(`${from} → ${link}: HTTP ${target.status}`);
        else if (hash && !target.ids.has(hash)) problems.push(`${from} → ${link}: no element with id "${hash}"`);
        if (target.status !== 200) return;
        for (const next of target.links) {
          if (seenLinks.has(next)) continue;
          seenLinks.add(next);
          // Static assets linked from pages are checked for existence but not parsed.
          queue.push({ from: path, link: next });
        }
      })
    );
  }
  const crawled = [...pages.keys()].filter((p) => !/\.[a-z0-9]+$/i.test(p));
  expect(crawled.length, "pages reached by the crawl").toBeGreaterThan(90);
  expect(problems).toEqual([]);
});
