import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  globalSetup: "./global-setup.ts",
  forbidOnly: true,
  retries: 0,
  // One browser: the tests share one database and some of them change it (unblock).
  workers: 1,
  fullyParallel: false,
  timeout: 30_000,
  expect: { timeout: 7_500 },
  reporter: "list",
  // Ignored by git: the tests leave the working tree as it was.
  outputDir: "../../../test-results/inspector",
  use: {
    viewport: { width: 1280, height: 800 },
    colorScheme: "light",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        // Without these Chromium waits for network services on a closed network.
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
});
