/**
 * What a browser that holds an inspector session gives away, and the
 * printed link's single use. Cookies for 127.0.0.1 go to every port of that
 * host, so the session must not be one: these tests visit another local
 * server with the signed-in browser and replay what it received.
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import { expect, test } from "@playwright/test";
import { link, open, origin } from "./helpers.js";

/** A plain HTTP server on another port of 127.0.0.1 that records the headers of every request it gets. */
async function eavesdropper() {
  const heard: IncomingHttpHeaders[] = [];
  const server: HttpServer = createServer((req, res) => {
    heard.push(req.headers);
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    // A subresource too, so that more than the navigation is recorded.
    res.end(req.url === "/" ? '<!doctype html><title>other</title><img src="/pixel.png" alt="">' : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { heard, url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

/** `GET /api/info` on the inspector with the given headers (Host set to the inspector's, as a replay must). */
async function replay(headers: Record<string, string>): Promise<number> {
  const { request } = await import("node:http");
  const target = new URL(origin("readOnly"));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: "/api/info",
        headers: { ...headers, host: target.host, connection: "close" },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }
    );
    req.on("error", reject);
    req.end();
  });
}

test("another server on 127.0.0.1 receives nothing from the signed-in browser that opens the inspector", async ({
  page,
  context,
}) => {
  const other = await eavesdropper();
  try {
    await open(page, "readOnly");
    await expect(page.getByRole("link", { name: "stock-tea" })).toBeVisible();
    // The user goes to another local web app, in the same tab and in a new one.
    await page.goto(other.url);
    await expect(page).toHaveTitle("other");
    const second = await context.newPage();
    await second.goto(other.url);
    await expect(second).toHaveTitle("other");
    expect(other.heard.length).toBeGreaterThanOrEqual(2);

    // Still signed in: the tab had a live session while the other server was visited.
    await page.goto(`${origin("readOnly")}/#/stream/order-1`);
    await expect(page.getByRole("listbox", { name: "Events of order-1" }).getByRole("option")).toHaveCount(5);

    for (const headers of other.heard) {
      const sent = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)])
      );
      // Everything it received, replayed as it came…
      expect(await replay(sent), `replayed: ${Object.keys(sent).join(", ")}`).toBe(401);
      // …and each value tried as the session itself.
      for (const value of Object.values(sent)) expect(await replay({ authorization: `Bearer ${value}` })).toBe(401);
      expect(headers.cookie, "a cookie went to the other port").toBeUndefined();
    }
  } finally {
    await other.close();
  }
});

test("the link opens the inspector once; a second browser that opens it is refused and told why", async ({
  page,
  browser,
}) => {
  const url = await link("readOnly");
  const first = await page.goto(url);
  expect(first?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Streams" })).toBeVisible();
  await expect(page.getByRole("link", { name: "stock-tea" })).toBeVisible();

  const elsewhere = await browser.newContext();
  try {
    const other = await elsewhere.newPage();
    const again = await other.goto(url);
    expect(again?.status()).toBe(403);
    await expect(other.locator("body")).toContainText("This link was already used.");
    await expect(other.locator("body")).toContainText(
      "Go back to the browser tab it opened, or restart the inspector for a new link."
    );
    // Nor does the page's own exchange succeed from there.
    const traded = await other.evaluate(async (token) => {
      const res = await fetch("/api/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      return res.status;
    }, new URL(url).searchParams.get("token"));
    expect(traded).toBe(403);
  } finally {
    await elsewhere.close();
  }
  // The tab that used it keeps working, reload included.
  await page.reload();
  await expect(page.getByRole("link", { name: "stock-tea" })).toBeVisible();
});
