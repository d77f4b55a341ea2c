import { useEffect, useState } from "react";

/** Where the page is: the part of the address after `#`, so the server only ever serves one page. */
export type Route =
  | { view: "streams"; prefix: string }
  | { view: "stream"; stream: string }
  | { view: "event"; id: string }
  | { view: "correlation"; id: string }
  | { view: "reactions" }
  | { view: "timers" }
  | { view: "timer"; id: string };

export function parse(hash: string): Route {
  const [path, query = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === "stream" && parts[1]) return { view: "stream", stream: parts.slice(1).join("/") };
  if (parts[0] === "event" && parts[1]) return { view: "event", id: parts[1] };
  if (parts[0] === "correlation" && parts[1]) return { view: "correlation", id: parts[1] };
  if (parts[0] === "reactions") return { view: "reactions" };
  if (parts[0] === "timers") return { view: "timers" };
  if (parts[0] === "timer" && parts[1]) return { view: "timer", id: parts.slice(1).join("/") };
  return { view: "streams", prefix: params.get("prefix") ?? "" };
}

/** The address of a route, for links. */
export function href(route: Route): string {
  switch (route.view) {
    case "stream":
      return `#/stream/${encodeURIComponent(route.stream)}`;
    case "event":
      return `#/event/${encodeURIComponent(route.id)}`;
    case "correlation":
      return `#/correlation/${encodeURIComponent(route.id)}`;
    case "reactions":
      return "#/reactions";
    case "timers":
      return "#/timers";
    case "timer":
      return `#/timer/${encodeURIComponent(route.id)}`;
    default:
      return route.prefix ? `#/?prefix=${encodeURIComponent(route.prefix)}` : "#/";
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parse(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
