import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, devices } from "@playwright/test";

/** Port of the suite's own static server (e2e/server.mjs). */
const port = Number(process.env.E2E_PORT ?? 4317);
/** The built site to serve; `build/` unless E2E_SITE_DIR points elsewhere. */
const siteDir = process.env.E2E_SITE_DIR
  ? resolve(process.env.E2E_SITE_DIR)
  : fileURLToPath(new URL("../build", import.meta.url));

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  // Without these Chromium waits for network services on a closed network.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  // Two cores: one browser per core.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  timeout: 30_000,
  expect: { timeout: 7_500 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never", outputFolder: "../playwright-report" }]] : "list",
  // Its own folder: Playwright empties it at the start, and the inspector's browser tests may be running beside.
  outputDir: "../test-results/site",
  use: {
    ...devices["Desktop Chrome"],
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    colorScheme: "light",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    },
  },
  webServer: {
    command: `node server.mjs --port ${port} --root "${siteDir}" --snapshot`,
    cwd: fileURLToPath(new URL(".", import.meta.url)),
    url: `http://127.0.0.1:${port}/act-root/`,
    reuseExistingServer: false,
    // SIGTERM lets the server remove its snapshot of the site.
    gracefulShutdown: { signal: "SIGTERM", timeout: 3_000 },
    stdout: "ignore",
    stderr: "pipe",
    timeout: 20_000,
  },
});
