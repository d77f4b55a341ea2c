// `npm run bench:site` — the site's speed budget (a benchmark, not a test:
// it prints a table and exits 0 whether targets are met or not).
//
// 1. Builds the production site into .cache/bench-site (timed; never while
//    another site build runs), or with --reuse serves the existing build/.
// 2. Serves it like GitHub Pages does (clean URLs, gzip, max-age=600) under
//    /act-root/ on 127.0.0.1.
// 3. In Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium), for
//    the intro, a concept page, an API page and the calculator page:
//    requests; transferred and decoded JS/CSS/HTML bytes; FCP, LCP and CLS;
//    every request's origin; axe (serious/critical) in light and dark mode;
//    Lighthouse performance, accessibility, best practices and SEO with the
//    mobile and desktop presets.
// 4. Prints the table (per page: Lighthouse mobile performance with its
//    simulated LCP and TBT, CLS, desktop performance, accessibility / best
//    practices / SEO, JavaScript decoded and gzip, requests to other
//    origins), then each speed target as met or missed, and the machine's
//    load average before and after (scores on a busy machine read low).
//
// Options: --reuse (serve build/, no build), --site-dir DIR (serve another
//          finished build), --pages intro,api (a subset),
//          --no-lighthouse, --runs N (Lighthouse runs per page and preset;
//          the run with the median performance score is kept, default 3),
//          --json FILE.
import { spawnSync } from "node:child_process";
import { createPagesServer } from "./pages-server.mjs";
import { siteBuildRunning } from "./site-build-running.mjs";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const CHROMIUM = process.env.CHROMIUM_PATH || process.env.CHROME_PATH || "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
const BASE = "/act-root/";

const ALL_PAGES = {
  intro: { label: "intro", path: "/act-root/docs/intro" },
  concept: { label: "concept (state-management)", path: "/act-root/docs/concepts/state-management" },
  api: { label: "API (classes/Act)", path: "/act-root/docs/api/act/src/classes/Act" },
  calculator: { label: "calculator", path: "/act-root/docs/examples/calculator" },
};
const pages = option("pages", Object.keys(ALL_PAGES).join(","))
  .split(",")
  .map((key) => ALL_PAGES[key.trim()])
  .filter(Boolean);

// The speed targets, and the reference site's intro measured the same way.
const TARGETS = {
  mobilePerformance: 90,
  desktopPerformance: 99,
  otherCategories: 100,
  cls: 0.02,
  introJsDecoded: 500 * 1024,
};
// The reference site's intro, measured the same way: 562 KB of JavaScript
// decoded, 173 KB gzip.

const log = (...args) => console.error("bench:site:", ...args);

// ---------------------------------------------------------------------------
// 1. The build
// ---------------------------------------------------------------------------

async function waitForOtherBuilds() {
  for (let waited = 0; siteBuildRunning(root); waited += 5) {
    if (waited === 0) log("another site build is running; waiting for it");
    if (waited > 900) throw new Error("a site build has been running for 15 minutes");
    await new Promise((done) => setTimeout(done, 5000));
  }
}

async function build() {
  if (flag("reuse") || option("site-dir")) {
    const dir = resolve(option("site-dir", join(root, "build")));
    if (!existsSync(join(dir, "sitemap.xml"))) throw new Error(`${dir} holds no complete build`);
    return { dir, seconds: undefined };
  }
  await waitForOtherBuilds();
  const dir = join(root, ".cache", "bench-site");
  log("building the packages and the site into .cache/bench-site (timed)…");
  const packages = spawnSync("npm", ["run", "build:packages"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (packages.status !== 0) throw new Error("npm run build:packages failed");
  const started = performance.now();
  const site = spawnSync(
    process.execPath,
    [join(root, "node_modules/@docusaurus/core/bin/docusaurus.mjs"), "build", "--out-dir", dir],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NO_UPDATE_NOTIFIER: "1" } }
  );
  const seconds = (performance.now() - started) / 1000;
  if (site.status !== 0) throw new Error("docusaurus build failed");
  return { dir, seconds };
}

// ---------------------------------------------------------------------------
// 2. The shared Pages-like server (scripts/pages-server.mjs), with gzip and
//    max-age=600 as GitHub Pages sends them.
// ---------------------------------------------------------------------------
function serve(dir) {
  const server = createPagesServer({ root: dir, base: BASE, gzip: true, cacheControl: "max-age=600" });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

// ---------------------------------------------------------------------------
// 3a. Bytes, requests, paint metrics, origins (Playwright + CDP)
// ---------------------------------------------------------------------------
const KIND = { Script: "js", Stylesheet: "css", Document: "html" };

async function measure(browser, origin, path) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const requests = new Map();
  cdp.on("Network.requestWillBeSent", ({ requestId, request, type }) => {
    requests.set(requestId, { url: request.url, type, encoded: 0, decoded: 0 });
  });
  cdp.on("Network.responseReceived", ({ requestId, type }) => {
    const r = requests.get(requestId);
    if (r) r.type = type;
  });
  cdp.on("Network.dataReceived", ({ requestId, dataLength }) => {
    const r = requests.get(requestId);
    if (r) r.decoded += dataLength;
  });
  cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength }) => {
    const r = requests.get(requestId);
    if (r) r.encoded = encodedDataLength;
  });
  await page.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__bench = { fcp: 0, lcp: 0, cls: 0 };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === "first-contentful-paint") w.__bench.fcp = e.startTime;
    }).observe({ type: "paint", buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__bench.lcp = e.startTime;
    }).observe({ type: "largest-contentful-paint", buffered: true });
    new PerformanceObserver((list) => {
      for (const e of /** @type {any[]} */ (list.getEntries())) if (!e.hadRecentInput) w.__bench.cls += e.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto(origin + path, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(1000);
  const paint = await page.evaluate(() => /** @type {any} */ (window).__bench);
  const all = [...requests.values()].filter((r) => !r.url.startsWith("data:"));
  const bytes = { js: { encoded: 0, decoded: 0 }, css: { encoded: 0, decoded: 0 }, html: { encoded: 0, decoded: 0 } };
  for (const r of all) {
    const kind = KIND[r.type];
    if (!kind) continue;
    bytes[kind].encoded += r.encoded;
    bytes[kind].decoded += r.decoded;
  }
  const foreign = all.map((r) => r.url).filter((url) => new URL(url).origin !== origin);
  // Diagrams are rendered at build time: no page may load Mermaid's code.
  const mermaid = [];
  for (const r of all.filter((r) => r.type === "Script")) {
    const body = await fetch(r.url)
      .then((res) => res.text())
      .catch(() => "");
    if (/mermaidAPI|mermaid\.initialize/.test(body)) mermaid.push(r.url);
  }

  // What a first search costs on the intro: the index (fetched by a web
  // worker, which the page's CDP session does not see) and the search code.
  let afterSearch;
  if (path === ALL_PAGES.intro.path) {
    const added = [];
    page.on("requestfinished", (request) =>
      added.push(
        Promise.all([request.sizes(), request.response().then((r) => r?.body())]).then(([sizes, body]) => ({
          url: request.url(),
          encoded: sizes.responseBodySize,
          decoded: body?.length ?? 0,
        }))
      )
    );
    await page.locator('nav.navbar input[aria-label="Search"]').click();
    await page.keyboard.type("snapshot", { delay: 20 });
    await page.locator("nav.navbar [role=option]").first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState("networkidle");
    const done = await Promise.all(added);
    afterSearch = {
      encoded: done.reduce((n, r) => n + r.encoded, 0),
      decoded: done.reduce((n, r) => n + r.decoded, 0),
      requests: done.length,
    };
    foreign.push(...done.map((r) => r.url).filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin));
  }
  await context.close();
  return { requests: all.length, bytes, ...paint, foreign, mermaid, afterSearch };
}

async function axe(browser, origin, path, mode) {
  const { AxeBuilder } = await import("@axe-core/playwright");
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: mode });
  const page = await context.newPage();
  await page.addInitScript((theme) => {
    try {
      localStorage.setItem("theme", theme);
    } catch {}
  }, mode);
  await page.goto(origin + path, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  const { violations } = await new AxeBuilder({ page }).analyze();
  await context.close();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.nodes.length})`);
}

// ---------------------------------------------------------------------------
// 3b. Lighthouse
// ---------------------------------------------------------------------------
async function lighthouseScores(url, preset, runs) {
  const { default: lighthouse, desktopConfig } = await import("lighthouse");
  const chromeLauncher = await import("chrome-launcher");
  const results = [];
  for (let run = 0; run < runs; run++) {
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      chromeFlags: ["--headless=new", ...CHROMIUM_FLAGS],
      logLevel: "silent",
    });
    try {
      const result = await lighthouse(
        url,
        {
          port: chrome.port,
          output: "json",
          logLevel: "error",
          onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
        },
        preset === "desktop" ? desktopConfig : undefined
      );
      const { categories, audits } = result.lhr;
      const score = (id) => Math.round((categories[id]?.score ?? 0) * 100);
      const failing = (id) =>
        categories[id].auditRefs
          .filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && audits[ref.id]?.score < 1)
          .map((ref) => ref.id);
      results.push({
        performance: score("performance"),
        accessibility: score("accessibility"),
        bestPractices: score("best-practices"),
        seo: score("seo"),
        fcp: audits["first-contentful-paint"]?.numericValue,
        lcp: audits["largest-contentful-paint"]?.numericValue,
        tbt: audits["total-blocking-time"]?.numericValue,
        cls: audits["cumulative-layout-shift"]?.numericValue,
        failing: [...failing("accessibility"), ...failing("best-practices"), ...failing("seo")],
      });
    } finally {
      await chrome.kill();
    }
  }
  results.sort((a, b) => a.performance - b.performance);
  return results[Math.floor(results.length / 2)];
}

// ---------------------------------------------------------------------------
// 4. Report
// ---------------------------------------------------------------------------
const kb = (n) => (n === undefined ? "–" : `${(n / 1024).toFixed(1)}`);
const ms = (n) => (n === undefined ? "–" : `${Math.round(n)}`);

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  return [line(rows[0]), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

async function main() {
  const { dir, seconds } = await build();
  const server = await serve(resolve(dir));
  const origin = `http://127.0.0.1:${server.address().port}`;
  log(`serving ${dir} at ${origin}${BASE}`);
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const runs = Number(option("runs", "3"));
  const loadBefore = loadavg();
  const results = [];
  try {
    for (const target of pages) {
      log(`measuring ${target.path}`);
      const m = await measure(browser, origin, target.path);
      const axeFindings = {
        light: await axe(browser, origin, target.path, "light"),
        dark: await axe(browser, origin, target.path, "dark"),
      };
      const lh = {};
      if (!flag("no-lighthouse")) {
        for (const preset of ["mobile", "desktop"]) {
          log(`lighthouse ${preset} ${target.path}`);
          lh[preset] = await lighthouseScores(origin + target.path, preset, runs);
        }
      }
      results.push({ ...target, ...m, axe: axeFindings, lighthouse: lh });
    }
  } finally {
    await browser.close();
    server.close();
    server.closeAllConnections?.();
  }

  const loadAfter = loadavg();
  const header = [
    "page",
    "mobile perf",
    "LCP (sim)",
    "TBT",
    "CLS",
    "desktop",
    "A/BP/SEO mobile",
    "A/BP/SEO desktop",
    "JS KB decoded / gzip",
    "req",
    "FCP/LCP ms (real)",
    "axe light/dark",
    "other origins",
  ];
  const sec = (n) => (n === undefined ? "–" : `${(n / 1000).toFixed(1)} s`);
  const others = (s) => (s ? `${s.accessibility}/${s.bestPractices}/${s.seo}` : "–");
  const rows = [header];
  for (const r of results) {
    const { mobile, desktop } = r.lighthouse;
    rows.push([
      r.label,
      mobile?.performance ?? "–",
      sec(mobile?.lcp),
      mobile ? `${ms(mobile.tbt)} ms` : "–",
      (mobile?.cls ?? r.cls).toFixed(3),
      desktop?.performance ?? "–",
      others(mobile),
      others(desktop),
      `${kb(r.bytes.js.decoded)} / ${kb(r.bytes.js.encoded)}`,
      r.requests,
      `${ms(r.fcp)} / ${ms(r.lcp)}`,
      `${r.axe.light.length}/${r.axe.dark.length}`,
      r.foreign.length,
    ]);
  }
  const load = (l) => l.map((n) => n.toFixed(2)).join(", ");
  console.log("");
  console.log(`Site speed budget (Chromium ${CHROMIUM}; ${new Date().toISOString()})`);
  console.log(
    `Lighthouse ${runs === 1 ? "1 run" : `median of ${runs} runs`} per page and preset (mobile and desktop presets)`
  );
  console.log(
    `Load average (1, 5, 15 min): before ${load(loadBefore)}; after ${load(loadAfter)} on ${availableParallelism()} cores`
  );
  console.log(
    `Build time: ${seconds === undefined ? "not measured (--reuse)" : `${seconds.toFixed(1)} s (docusaurus build, packages prebuilt)`}`
  );
  console.log("");
  console.log(table(rows));
  const intro = results.find((r) => r.path === ALL_PAGES.intro.path);
  if (intro?.afterSearch)
    console.log(
      `\nintro: CSS ${kb(intro.bytes.css.decoded)} KB decoded / ${kb(intro.bytes.css.encoded)} KB gzip, HTML ${kb(intro.bytes.html.decoded)} / ${kb(intro.bytes.html.encoded)} KB` +
        `\nintro after a first search: +${intro.afterSearch.requests} requests, +${kb(intro.afterSearch.encoded)} KB transferred / +${kb(intro.afterSearch.decoded)} KB decoded (index, worker, autocomplete)`
    );
  for (const r of results) {
    for (const preset of ["mobile", "desktop"]) {
      const s = r.lighthouse[preset];
      if (s?.failing?.length) console.log(`${r.label} (${preset}): failing Lighthouse audits: ${s.failing.join(", ")}`);
      if (s)
        console.log(`${r.label} (${preset}): Lighthouse FCP ${ms(s.fcp)} ms, LCP ${ms(s.lcp)} ms, TBT ${ms(s.tbt)} ms`);
    }
    for (const mode of ["light", "dark"])
      if (r.axe[mode].length) console.log(`${r.label} axe ${mode}: ${r.axe[mode].join(", ")}`);
    if (r.foreign.length) console.log(`${r.label}: requests to other origins: ${r.foreign.join(", ")}`);
    if (r.mermaid.length) console.log(`${r.label}: loads Mermaid's code: ${r.mermaid.join(", ")}`);
  }

  // Targets.
  const verdicts = [];
  const mark = (ok) => (ok === undefined ? "not measured" : ok ? "met" : "MISSED");
  const measured = results.filter((r) => r.lighthouse.mobile);
  const worst = (preset, key) =>
    measured.length ? Math.min(...measured.map((r) => r.lighthouse[preset][key])) : undefined;
  const allAt = (v, min) => (v === undefined ? undefined : v >= min);
  for (const [key, name] of [
    ["accessibility", "accessibility"],
    ["bestPractices", "best practices"],
    ["seo", "SEO"],
  ]) {
    const low = Math.min(worst("mobile", key) ?? Infinity, worst("desktop", key) ?? Infinity);
    verdicts.push([
      `Lighthouse ${name} 100 on every page (both presets)`,
      measured.length ? `lowest ${low}` : "–",
      mark(measured.length ? low >= 100 : undefined),
    ]);
  }
  verdicts.push([
    `Lighthouse performance ≥ ${TARGETS.mobilePerformance} mobile`,
    measured.length ? `lowest ${worst("mobile", "performance")}` : "–",
    mark(allAt(worst("mobile", "performance"), TARGETS.mobilePerformance)),
  ]);
  verdicts.push([
    `Lighthouse performance ≥ ${TARGETS.desktopPerformance} desktop`,
    measured.length ? `lowest ${worst("desktop", "performance")}` : "–",
    mark(allAt(worst("desktop", "performance"), TARGETS.desktopPerformance)),
  ]);
  const worstCls = Math.max(
    ...results.map((r) => Math.max(r.cls, r.lighthouse.mobile?.cls ?? 0, r.lighthouse.desktop?.cls ?? 0))
  );
  verdicts.push([
    `CLS ≤ ${TARGETS.cls} on every page`,
    `highest ${worstCls.toFixed(3)}`,
    mark(worstCls <= TARGETS.cls),
  ]);
  if (intro) {
    verdicts.push([
      `intro JS ≤ ${TARGETS.introJsDecoded / 1024} KB decoded (reference 562 KB)`,
      `${kb(intro.bytes.js.decoded)} KB`,
      mark(intro.bytes.js.decoded <= TARGETS.introJsDecoded),
    ]);
  }
  const mermaidPages = results.filter((r) => r.mermaid.length).length;
  verdicts.push(["no page loads Mermaid", `${mermaidPages} pages do`, mark(mermaidPages === 0)]);
  const foreign = results.reduce((n, r) => n + r.foreign.length, 0);
  verdicts.push(["no request to another origin", `${foreign} such requests`, mark(foreign === 0)]);
  const axeCount = results.reduce((n, r) => n + r.axe.light.length + r.axe.dark.length, 0);
  verdicts.push([
    "axe: no serious/critical violation (light and dark)",
    `${axeCount} rules failing`,
    mark(axeCount === 0),
  ]);
  console.log("");
  console.log(table([["target", "measured", "verdict"], ...verdicts]));

  const json = option("json");
  if (json) {
    mkdirSync(join(json, ".."), { recursive: true });
    writeFileSync(json, JSON.stringify({ buildSeconds: seconds, loadBefore, loadAfter, results, verdicts }, null, 2));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
