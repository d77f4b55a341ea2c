/**
 * Typed from the app: the action names and each rule's payload and state
 * come from the app's types (`npm run typecheck` fails on a line below that
 * stops being an error), and the sources use nothing but Hono, zod, Act and
 * web standards, so one build runs on Node, Bun, Deno and Workers.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { http, stream } from "../src/index.js";
import { alice, app, Note } from "./notes.js";

describe("types", () => {
  it("takes only the app's actions, and gives each rule its payload and state", () => {
    const build = () =>
      http(app, {
        authenticate: () => alice,
        actions: {
          Edit: { authorize: async ({ payload, load }) => payload.body.length < 100 && !(await load()).state.closed },
          // @ts-expect-error Create's payload has no owner: the owner is the caller
          Create: { authorize: ({ payload }) => payload.owner === alice.id },
          // @ts-expect-error not an action of the app
          Publish: { authorize: () => true },
        },
        streams: [stream(Note, { authorize: ({ state }) => state.owner === alice.id })],
      });
    // At run time, the unknown action is refused too.
    expect(build).toThrow(/"Publish" is not an action of the app/);
    // @ts-expect-error a Note has no `color`
    stream(Note, { authorize: ({ state }) => state.color === "red" });
  });
});

describe("portability", () => {
  it("imports only hono, zod, @act-root/act and its own files: no node: modules", () => {
    const files = (dir: URL): URL[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(new URL(`${e.name}/`, dir)) : [new URL(e.name, dir)]
      );
    const imported = new Set<string>();
    for (const file of files(new URL("../src/", import.meta.url)))
      for (const [, from] of readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)) imported.add(from!);
    const outside = [...imported].filter((from) => !from.startsWith("."));
    expect(new Set(outside)).toEqual(new Set(["@act-root/act", "hono", "zod"]));
  });
});
