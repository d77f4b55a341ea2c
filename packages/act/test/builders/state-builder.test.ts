import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, BuilderError, InvariantError, state, ValidationError } from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

/** A base every test branches from: a light that can be switched on or off. */
const base = () =>
  state("Light", z.object({ on: z.boolean() }))
    .init(() => ({ on: false }))
    .emits({ Switched: z.object({ on: z.boolean() }) })
    .patch({ Switched: (e) => ({ on: e.data.on }) });

describe("the state builder", () => {
  it("gives each branch from one base only the actions added on it", async () => {
    const light = base();
    const withOn = light.on("switchOn", z.object({})).emit(() => ["Switched", { on: true }]);
    const withOff = light.on("switchOff", z.object({})).emit(() => ["Switched", { on: false }]);
    const On = withOn.build();
    const Off = withOff.build();
    expect(Object.keys(On.actions)).toEqual(["switchOn"]);
    expect(Object.keys(Off.actions)).toEqual(["switchOff"]);
    expect(Object.keys(light.build().actions)).toEqual([]);

    // Each branch can even reuse the other's action name: they never met.
    expect(() => withOn.on("switchOff", z.object({})).emit(() => undefined)).not.toThrow();

    const app = act().with(On).build();
    const [snap] = await app.do("switchOn", { stream: "l", actor }, {});
    expect(snap.state.on).toBe(true);
  });

  it("leaves a built state unchanged when its builder is extended afterwards", () => {
    const builder = base()
      .on("switchOn", z.object({}))
      .emit(() => ["Switched", { on: true }]);
    const Light = builder.build();
    builder
      .on("switchOff", z.object({}))
      .emit(() => ["Switched", { on: false }])
      .build();
    expect(Object.keys(Light.actions)).toEqual(["switchOn"]);
    expect(Object.keys(Light.on)).toEqual(["switchOn"]);
  });

  it("keeps a state's invariants when the caller later changes the array it passed", async () => {
    const rules = [{ description: "Light must be off", valid: (s: { on: boolean }) => !s.on }];
    const Light = base()
      .on("switchOn", z.object({}))
      .given(rules)
      .emit(() => ["Switched", { on: true }])
      .build();
    rules.length = 0;
    const app = act().with(Light).build();
    await app.do("switchOn", { stream: "l", actor }, {});
    await expect(app.do("switchOn", { stream: "l", actor }, {})).rejects.toThrow(InvariantError);
  });

  it("throws on a duplicate action name", () => {
    const builder = base()
      .on("switchOn", z.object({}))
      .emit(() => ["Switched", { on: true }]);
    // @ts-expect-error the types refuse a duplicate action name too
    expect(() => builder.on("switchOn", z.object({}))).toThrow(/Duplicate action "switchOn" in state "Light"/);
    // @ts-expect-error the same call, checked for its typed error
    expect(() => builder.on("switchOn", z.object({}))).toThrow(BuilderError);
  });

  it("turns a schema that throws into a ValidationError from app.do", async () => {
    const Light = base()
      .on(
        "dim",
        z.object({ level: z.number() }).refine(({ level }) => {
          if (level > 100) throw new Error("the dimmer melted");
          return true;
        })
      )
      .emit(() => ["Switched", { on: true }])
      .build();
    const app = act().with(Light).build();
    const error = await app.do("dim", { stream: "l", actor }, { level: 101 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/dim/);
    expect((error as Error).message).toMatch(/the dimmer melted/);
  });
});
