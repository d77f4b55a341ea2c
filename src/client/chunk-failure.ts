/**
 * A page whose code fails to load on the first visit shows the error text
 * with Retry, as a page whose code fails later does (src/theme/Loading).
 *
 * Docusaurus starts a page only once the code of its route has loaded.
 * When that fails on the first load (a deployment replaced the files, the
 * connection dropped) it leaves the server's HTML as it is, readable but
 * with nothing working, and the failure ends as an unhandled promise
 * rejection. This client module listens for that rejection while the page
 * is not live yet (src/client/page-live.ts) and puts the error and a Retry
 * button, which reloads the page, at the top of the article.
 */
import { LIVE_ATTRIBUTE } from "./page-live";

/** Whether `reason` is the bundler's error for a script or style sheet that did not load. */
export function isChunkLoadError(reason: unknown): reason is Error {
  return (
    reason instanceof Error &&
    (reason.name === "ChunkLoadError" || /Loading (CSS )?chunk .* failed/i.test(reason.message))
  );
}

/** The screen src/theme/Loading shows for a failed load, in plain DOM (React is not running). */
export function failureScreen(document: Document, error: Error, retry: () => void): HTMLElement {
  const screen = document.createElement("div");
  screen.setAttribute("role", "alert");
  screen.className = "alert alert--danger margin--lg";
  const text = document.createElement("p");
  text.textContent = String(error);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button--danger";
  button.textContent = "Retry";
  button.addEventListener("click", retry);
  screen.append(text, button);
  return screen;
}

if (typeof window !== "undefined") {
  window.addEventListener("unhandledrejection", (event) => {
    const root = document.documentElement;
    if (root.hasAttribute(LIVE_ATTRIBUTE) || !isChunkLoadError(event.reason)) return;
    if (document.querySelector("[data-chunk-failure]")) return;
    const screen = failureScreen(document, event.reason, () => window.location.reload());
    screen.setAttribute("data-chunk-failure", "");
    const main = document.querySelector("main") ?? document.body;
    main.prepend(screen);
  });
}
