/**
 * Renders Mermaid diagram sources to SVG at build time, in Chromium, so no
 * page ever downloads or runs Mermaid.
 *
 * Mermaid measures its text in a real browser, so the renderer drives the
 * same Debian Chromium the browser tests use (CHROMIUM_PATH, default
 * /usr/bin/chromium) through Playwright, with Mermaid's own bundle loaded
 * from node_modules: no network is needed. One browser serves the whole
 * build and closes once no diagram has been asked for a few seconds.
 * Rendered SVGs are cached under node_modules/.cache/act-diagrams, keyed by
 * the Mermaid version, the theme and the source, so a rebuild without
 * changed diagrams starts no browser at all.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Browser, Page } from "@playwright/test";

const require = createRequire(import.meta.url);

/** The two looks of every diagram: the site's light and dark colour modes. */
export type Theme = "light" | "dark";

/** Mermaid's theme for each colour mode. */
const MERMAID_THEME: Record<Theme, string> = { light: "default", dark: "dark" };

/**
 * Colours changed from Mermaid's dark theme so every label keeps WCAG AA
 * contrast (its edge labels are #ccc on #585858, 4.4:1).
 */
const THEME_VARIABLES: Record<Theme, Record<string, string>> = {
  light: {},
  dark: { edgeLabelBackground: "#3a3a3a" },
};

/** Where Chromium is looked for. */
export const chromiumPath = () => process.env.CHROMIUM_PATH || process.env.CHROME_PATH || "/usr/bin/chromium";

const mermaidBundle = () => join(dirname(require.resolve("mermaid/package.json")), "dist", "mermaid.min.js");
const mermaidVersion = () =>
  JSON.parse(readFileSync(require.resolve("mermaid/package.json"), "utf8")).version as string;

const cacheDir = () => join(process.cwd(), "node_modules", ".cache", "act-diagrams");

let browser: Promise<Browser> | undefined;
let page: Promise<Page> | undefined;
let queue: Promise<unknown> = Promise.resolve();
let pending = 0;
let idleTimer: NodeJS.Timeout | undefined;
const inFlight = new Map<string, Promise<string>>();

async function openPage(): Promise<Page> {
  const path = chromiumPath();
  if (!existsSync(path))
    throw new Error(
      `The site's diagrams are rendered to SVG at build time in Chromium, which was not found at ${path}. ` +
        `Install Debian's "chromium" package (the one the browser tests use) or set CHROMIUM_PATH to a Chromium binary.`
    );
  const { chromium } = await import("@playwright/test");
  browser = chromium.launch({
    executablePath: path,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
  const tab = await (await browser).newPage();
  await tab.setContent("<!doctype html><html><head><meta charset=utf-8></head><body></body></html>");
  await tab.addScriptTag({ path: mermaidBundle() });
  return tab;
}

function closeWhenIdle() {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (pending > 0 || !browser) return;
    const closing = browser;
    browser = undefined;
    page = undefined;
    void closing.then((b) => b.close()).catch(() => {});
  }, 3000);
}

async function renderInBrowser(id: string, source: string, theme: Theme): Promise<string> {
  page ??= openPage();
  const tab = await page;
  return tab.evaluate(
    async ({ id, source, theme, themeVariables }) => {
      const mermaid = (window as unknown as { mermaid: any }).mermaid;
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme, themeVariables });
      const { svg } = await mermaid.render(id, source);
      return svg as string;
    },
    { id, source, theme: MERMAID_THEME[theme], themeVariables: THEME_VARIABLES[theme] }
  );
}

/**
 * The SVG of `source` in `theme`, its root element's id being `id`.
 * Renders run one at a time (Mermaid keeps global state in the page).
 */
export function renderMermaid(id: string, source: string, theme: Theme): Promise<string> {
  const key = createHash("sha256")
    .update(JSON.stringify([mermaidVersion(), MERMAID_THEME[theme], THEME_VARIABLES[theme], id, source]))
    .digest("hex");
  const file = join(cacheDir(), `${key}.svg`);
  if (existsSync(file)) return Promise.resolve(readFileSync(file, "utf8"));
  const running = inFlight.get(key);
  if (running) return running;
  pending++;
  // One render at a time: each waits for the one before it, failed or not.
  const result = queue.catch(() => {}).then(() => renderInBrowser(id, source, theme)) as Promise<string>;
  queue = result;
  const done = result
    .then((svg) => {
      mkdirSync(cacheDir(), { recursive: true });
      writeFileSync(file, svg);
      return svg;
    })
    .finally(() => {
      pending--;
      inFlight.delete(key);
      closeWhenIdle();
    });
  inFlight.set(key, done);
  return done;
}
