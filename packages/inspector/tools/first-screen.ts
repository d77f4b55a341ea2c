/**
 * The measure scripts' shared part: how long a reader waits, on a cold first
 * visit, for the streams page to be usable — rows on screen and the search
 * box editable — in Debian's Chromium (`CHROMIUM_PATH` for another).
 */
import { chromium } from "@playwright/test";
import type { RunningServer } from "../src/server/http.js";

/**
 * Five cold visits of the server (a new browser context each: no session, no
 * cache), each with a one-use link of its own, so that each visit includes
 * the sign-in; prints and returns the times in ms.
 */
export async function firstScreen(server: RunningServer): Promise<number[]> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const timings: number[] = [];
  try {
    for (let run = 0; run < 5; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const url = run === 0 ? server.url : server.link();
      const start = performance.now();
      await page.goto(url);
      await page.getByRole("row").nth(50).waitFor();
      await page.getByLabel("Stream name starts with").isEditable();
      timings.push(performance.now() - start);
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const sorted = [...timings].sort((a, b) => a - b);
  console.log(
    `First screen interactive (ms, 5 cold visits): ${timings.map((t) => t.toFixed(0)).join(", ")}; median ${sorted[2].toFixed(0)}`
  );
  return timings;
}
