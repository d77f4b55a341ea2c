// The routes and API pages the site promises, the
// fixtures every test uses, and small helpers shared by the specs.
import { test as base, expect, type ConsoleMessage, type Page, type Route } from "@playwright/test";
import { CORE_API_PAGES } from "../scripts/promised-api-pages.mjs";

export const BASE = "/act-root/";

/** The route table: path, expected document title, expected h1. */
export const ROUTES: { path: string; title: RegExp; heading: RegExp }[] = [
  { path: "/act-root/docs/intro", title: /^Introduction \| Act$/, heading: /\S/ },
  { path: "/act-root/docs/concepts/configuration", title: /^Configuration \| Act$/, heading: /Configuration/i },
  { path: "/act-root/docs/concepts/event-sourcing", title: /^Event sourcing \| Act$/i, heading: /Event sourcing/i },
  {
    path: "/act-root/docs/concepts/state-management",
    title: /^State management \| Act$/i,
    heading: /State management/i,
  },
  { path: "/act-root/docs/examples/calculator", title: /Calculator.* \| Act$/i, heading: /Calculator/i },
  { path: "/act-root/docs/examples/wolfdesk", title: /WolfDesk.* \| Act$/i, heading: /WolfDesk/i },
  { path: "/act-root/docs/api/", title: /API.* \| Act$/, heading: /API/ },
  // The core and Postgres store package indexes: the heading names the package.
  { path: "/act-root/docs/api/act/src/", title: /\bact\b(?!-).* \| Act$/, heading: /\bact\b(?!-)/ },
  { path: "/act-root/docs/api/act-pg/src/", title: /\bact-pg\b.* \| Act$/, heading: /\bact-pg\b/ },
  {
    path: "/act-root/docs/api/act-pg/src/classes/PostgresStore",
    title: /PostgresStore.* \| Act$/,
    heading: /\bPostgresStore\b/,
  },
];

/** The core package's API pages under /act-root/docs/api/act/src/, by kind. */
export const CORE_API: Record<string, readonly string[]> = CORE_API_PAGES;

export const INTRO = "/act-root/docs/intro";
export const CONCEPT = "/act-root/docs/concepts/state-management";
export const EXAMPLE = "/act-root/docs/examples/calculator";
export const API_INDEX = "/act-root/docs/api/";
export const API_PAGE = "/act-root/docs/api/act/src/classes/Act";
export const NOT_FOUND = "/act-root/docs/this-page-does-not-exist";

/** The text of the browser's own log line for a document or resource answered with 404. */
export const RESOURCE_404 = /^Failed to load resource: the server responded with a status of 404/;

export class ConsoleLog {
  readonly messages: { type: string; text: string; url: string }[] = [];
  readonly pageErrors: string[] = [];
  private allowed: RegExp[] = [];

  record(message: ConsoleMessage): void {
    this.messages.push({ type: message.type(), text: message.text(), url: message.location().url });
  }

  /** Declares an error message the current test provokes on purpose. */
  allow(pattern: RegExp): void {
    this.allowed.push(pattern);
  }

  get errors(): string[] {
    return [
      ...this.messages
        .filter((m) => m.type === "error" && !this.allowed.some((re) => re.test(m.text)))
        .map((m) => `console.error: ${m.text} (${m.url})`),
      ...this.pageErrors.filter((e) => !this.allowed.some((re) => re.test(e))).map((e) => `uncaught: ${e}`),
    ];
  }

  get warnings(): string[] {
    return this.messages.filter((m) => m.type === "warning").map((m) => m.text);
  }
}

/**
 * No console errors on any visited page: every test records
 * the console of every page it opens and fails on an error it did not
 * announce with `consoleLog.allow(...)`.
 */
export const test = base.extend<{ consoleLog: ConsoleLog }>({
  consoleLog: [
    async ({ context }, use, testInfo) => {
      const log = new ConsoleLog();
      context.on("console", (message) => log.record(message));
      context.on("weberror", (error) => log.pageErrors.push(String(error.error())));
      await use(log);
      if (testInfo.status === testInfo.expectedStatus) {
        expect(log.errors, "console errors on the visited pages").toEqual([]);
      } else if (log.errors.length) {
        // The test failed on something else: keep the console for the diagnosis.
        await testInfo.attach("console-errors", { body: log.errors.join("\n"), contentType: "text/plain" });
      }
    },
    { auto: true },
  ],
});
export { expect };

/** Opens a page the way a reader does and waits until React has taken over. */
export async function open(page: Page, path: string): Promise<ReturnType<Page["goto"]>> {
  const response = await page.goto(path);
  await hydrated(page);
  return response;
}

/**
 * Resolves once the client app is running: the page's code loads after the
 * first paint, and `<html data-live>` marks the end of its hydration
 * (src/theme/Root).
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.hasAttribute("data-live"));
  await page.waitForLoadState("load");
}

/**
 * Holds back the requests whose URL matches `pattern` until `release()`:
 * what a slow network does to a chunk, on demand.
 */
export async function holdRequests(page: Page, pattern: RegExp) {
  const waiting: Route[] = [];
  let released = false;
  await page.route(pattern, (route) => (released ? route.continue() : void waiting.push(route)));
  return {
    requested: () => waiting.length > 0,
    release: async () => {
      released = true;
      for (const route of waiting.splice(0)) await route.continue();
    },
  };
}

/** The main bundle's URL. */
export const MAIN_BUNDLE = /\/assets\/js\/main\.[^/]+\.js$/;

export function mainHeading(page: Page) {
  return page.locator("main h1, article h1").first();
}

/** The sidebar next to a doc (desktop layout). */
export function docSidebar(page: Page) {
  return page.locator("aside.theme-doc-sidebar-container nav.menu");
}
