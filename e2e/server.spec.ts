// The test harness itself: e2e/server.mjs must answer like GitHub Pages,
// or the routing tests would prove nothing about the deployed site. It is
// checked on a tiny site of its own, so the site's layout cannot hide a rule.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "./site";

test("harness: the static server answers like GitHub Pages", async ({ playwright }) => {
  const root = mkdtempSync(join(tmpdir(), "act-e2e-pages-"));
  // A real file beside the served folder, for the traversal checks below.
  const outside = mkdtempSync(join(tmpdir(), "act-e2e-outside-"));
  writeFileSync(join(outside, "secret.txt"), "secret");
  const files: Record<string, string> = {
    "404.html": "not found page",
    "index.html": "home",
    "page.html": "page as file",
    "folder/index.html": "folder index",
    "both.html": "both as file",
    "both/index.html": "both as folder",
    "feed.xml": "<feed/>",
  };
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), body);
  }
  const port = 4300 + Math.floor(Math.random() * 600);
  const server = spawn(
    process.execPath,
    [fileURLToPath(new URL("server.mjs", import.meta.url)), "--port", String(port), "--root", root],
    {
      stdio: ["ignore", "pipe", "inherit"],
    }
  );
  try {
    await new Promise<void>((ready, fail) => {
      server.stdout!.once("data", () => ready());
      server.once("exit", (code) => fail(new Error(`server exited with ${code}`)));
    });
    const request = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${port}` });
    const get = (path: string) => request.get(path, { maxRedirects: 0 });
    const expectPage = async (path: string, status: number, body: string) => {
      const response = await get(path);
      expect(response.status(), path).toBe(status);
      expect(await response.text(), path).toBe(body);
    };

    await expectPage("/act-root/", 200, "home");
    await expectPage("/act-root/page", 200, "page as file"); // /x serves x.html
    await expectPage("/act-root/page.html", 200, "page as file");
    await expectPage("/act-root/folder/", 200, "folder index"); // /x/ serves x/index.html
    await expectPage("/act-root/folder/index.html", 200, "folder index");
    await expectPage("/act-root/both", 200, "both as file"); // x.html wins over x/
    await expectPage("/act-root/both/", 200, "both as folder");
    for (const [path, location] of [
      ["/act-root", "/act-root/"],
      ["/act-root/folder", "/act-root/folder/"], // only a folder index: redirect
      ["/act-root/folder?q=1", "/act-root/folder/?q=1"],
    ]) {
      const response = await get(path);
      expect(response.status(), path).toBe(301);
      expect(response.headers().location, path).toBe(location);
    }
    for (const path of ["/act-root/nope", "/act-root/page/", "/act-root/folder.html", "/"]) {
      await expectPage(path, 404, "not found page");
    }
    // `..` with encoded slashes reaches the server as written only from a raw
    // request (Playwright's client, like fetch, normalises the path first).
    // More spellings and symbolic links: scripts/pages-server.test.mjs.
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((done, fail) =>
        httpGet({ host: "127.0.0.1", port, path, agent: false }, (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => done({ status: res.statusCode ?? 0, body }));
        }).on("error", fail)
      );
    for (const path of [
      `/act-root/..%2f${basename(outside)}%2fsecret.txt`,
      `/act-root/folder/..%2F..%2F${basename(outside)}/secret.txt`,
    ])
      expect(await raw(path), path).toEqual({ status: 404, body: "not found page" });
    expect((await get("/act-root/feed.xml")).headers()["content-type"]).toMatch(/xml/);
    expect((await get("/act-root/page")).headers()["content-type"]).toMatch(/^text\/html/);
    await request.dispose();
  } finally {
    server.kill("SIGTERM");
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
