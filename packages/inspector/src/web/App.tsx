import { lazy, Suspense } from "react";
import { api } from "./api.js";
import { ErrorBox, useLoad } from "./common.js";
import { href, useRoute } from "./route.js";

// Each view is a chunk of its own: the first screen (the streams) loads only its own code.
const Streams = lazy(() => import("./views/Streams.js"));
const Timeline = lazy(() => import("./views/Timeline.js"));
const Causation = lazy(() => import("./views/Causation.js"));
const Correlation = lazy(() => import("./views/Correlation.js"));
const Reactions = lazy(() => import("./views/Reactions.js"));
const Timers = lazy(() => import("./views/Timers.js"));
const Timer = lazy(() => import("./views/Timer.js"));

export function App() {
  const route = useRoute();
  const info = useLoad(() => api.info(), []);
  const current =
    route.view === "reactions" ? "reactions" : route.view === "timers" || route.view === "timer" ? "timers" : "streams";
  return (
    <>
      {/* A button, not a link to #main: the address after # is the page's route. */}
      <button type="button" className="skip" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <header>
        <a className="brand" href="#/">
          Act Inspector
        </a>
        <nav aria-label="Views">
          <a href={href({ view: "streams", prefix: "" })} aria-current={current === "streams" ? "page" : undefined}>
            Streams
          </a>
          <a href={href({ view: "reactions" })} aria-current={current === "reactions" ? "page" : undefined}>
            Reactions
          </a>
          <a href={href({ view: "timers" })} aria-current={current === "timers" ? "page" : undefined}>
            Timers
          </a>
        </nav>
        {info.data && (
          <p className="status">
            <span>{info.data.store}</span>
            <span className="badge">{info.data.mode === "app" ? "app mode" : "store mode"}</span>
            <span className={info.data.operations ? "badge warn" : "badge"}>
              {info.data.operations ? "operations allowed" : "read-only"}
            </span>
          </p>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {info.error && <ErrorBox message={info.error} />}
        {/* The streams view needs nothing from /api/info: it does not wait for it. */}
        {(info.data || route.view === "streams") && (
          <Suspense fallback={<p aria-live="polite">Loading…</p>}>
            {route.view === "streams" && <Streams key={route.prefix} prefix={route.prefix} />}
            {info.data && route.view === "stream" && (
              <Timeline key={route.stream} stream={route.stream} info={info.data} />
            )}
            {route.view === "event" && <Causation key={route.id} id={route.id} />}
            {info.data && route.view === "correlation" && <Correlation key={route.id} id={route.id} info={info.data} />}
            {info.data && route.view === "reactions" && <Reactions info={info.data} />}
            {route.view === "timers" && <Timers />}
            {route.view === "timer" && <Timer key={route.id} id={route.id} />}
          </Suspense>
        )}
      </main>
    </>
  );
}
