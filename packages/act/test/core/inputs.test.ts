import { beforeEach, describe, expect, it } from "vitest";
import { act, InMemoryStore, ValidationError } from "../../src/index.js";
import { checkCommit, checkName, checkOptions, OptionSchemas } from "../../src/internal/index.js";
import { settle } from "../../src/testing/index.js";
import { actor, Counter, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

/** The ValidationError `run` throws (fails the test if it throws nothing or something else). */
function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error("expected a ValidationError");
}

describe("one validator for options", () => {
  it.each([
    ["eventLimit", 0],
    ["eventLimit", Number.NaN],
    ["streamLimit", Number.NaN],
    ["streamLimit", 1.5],
    ["leaseMillis", Number.POSITIVE_INFINITY],
    ["leaseMillis", -1],
    ["backlogMillis", -1],
    ["backlogMillis", Number.NaN],
    ["backlogMillis", 0.5],
  ])("drain refuses %s = %s, naming the option", async (option, value) => {
    const app = act().with(Counter).build();
    const error = await app.drain({ [option]: value }).then(
      () => undefined,
      (e) => e
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain("drain options");
    expect(error.details[0].path).toBe(option);
  });

  it.each([
    ["eventLimit", 0],
    ["pollMillis", Number.NaN],
    ["pollMillis", 0],
    ["graceMillis", -5],
    ["streamLimit", Number.NaN],
    ["backlogMillis", Number.POSITIVE_INFINITY],
  ])("start refuses %s = %s before starting anything", async (option, value) => {
    const app = act().with(Counter).build();
    const error = refusal(() => app.start({ [option]: value }));
    expect(error.details[0].path).toBe(option);
    // Nothing was started: a valid start still starts.
    expect(app.start({ pollMillis: 50 })).toBe(true);
    await app.stop();
  });

  it.each([
    ["maxRetries", Number.NaN],
    ["maxRetries", -1],
    ["retryBaseMillis", Number.NaN],
    ["retryMaxMillis", Number.POSITIVE_INFINITY],
    ["blockOnError", "yes"],
    ["since", new Date("not a date")],
  ])("a reaction refuses %s = %s", (option, value) => {
    const builder = act().with(Counter).on("Incremented");
    const error = refusal(() => builder.do(async () => {}, { [option]: value }));
    expect(error.message).toContain("reaction options");
    expect(error.details[0].path).toBe(option);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 2.5])(
    "the in-memory store refuses idempotencyMillis = %s",
    (value) => {
      const error = refusal(() => new InMemoryStore({ idempotencyMillis: value }));
      expect(error.message).toMatch(/^Invalid store options: idempotencyMillis: /);
    }
  );

  it.each([
    ["maxDrains", Number.NaN],
    ["timeoutMillis", Number.POSITIVE_INFINITY],
    ["eventLimit", 0],
  ])("settle refuses %s = %s", async (option, value) => {
    const app = act().with(Counter).build();
    const error = await settle(app, { [option]: value }).then(
      () => undefined,
      (e) => e
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.details[0].path).toBe(option);
  });

  it.each([Number.NaN, 0, -1])("startCorrelations refuses an intervalMillis of %s", (intervalMillis) => {
    const app = act().with(Counter).build();
    refusal(() => app.startCorrelations({ intervalMillis }));
    expect(app.startCorrelations({ intervalMillis: 60_000 })).toBe(true); // nothing was started by the refused call
    app.stopCorrelations();
  });

  it("accepts good options and leaves unknown ones alone", () => {
    const options = { eventLimit: 5, extra: "kept" };
    expect(checkOptions("drain", options, OptionSchemas.drain)).toBe(options);
    expect(checkOptions("drain", undefined, OptionSchemas.drain)).toEqual({});
    expect(refusal(() => checkOptions("drain", 5 as never, OptionSchemas.drain)).message).toContain(
      "must be an object"
    );
  });
});

describe("one validator for names", () => {
  it.each(["", "a\u0000b", "x".repeat(257), "\uD800"])("refuses the name %j", (name) => {
    refusal(() => checkName("stream", name));
    refusal(() => checkName("idempotency key", name));
  });

  it("accepts names that are Object's own property names", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(checkName("stream", name)).toBe(name);
  });

  it("checks every input of a commit", () => {
    const meta = { correlation: "c", causation: {} };
    const messages = [{ name: "A", data: {} }];
    checkCommit({ stream: "s", messages, meta, expectedVersion: -1, idempotencyKey: "k", lastId: 3, request: "r" });
    const refused = (commit: Partial<Parameters<typeof checkCommit>[0]>) =>
      refusal(() => checkCommit({ stream: "s", messages: [], meta, ...commit })).message;
    expect(refused({ stream: "" })).toContain("stream");
    expect(refused({ messages: [{ name: "", data: {} }] })).toContain("event name");
    expect(refused({ meta: { correlation: "a\u0000", causation: {} } })).toContain("correlation");
    expect(refused({ expectedVersion: Number.NaN })).toContain("expected version");
    expect(refused({ expectedVersion: -2 })).toContain("expected version");
    expect(refused({ expectedVersion: 0, idempotencyKey: "" })).toContain("idempotency key");
    expect(refused({ lastId: 1.5 })).toContain("last event id");
    expect(refused({ idempotencyKey: "k", request: "" })).toContain("idempotency request");
  });
});

describe("action names are the app's own", () => {
  it.each(["constructor", "toString", "hasOwnProperty", "__proto__"])(
    'app.do("%s") is an unknown action',
    async (name) => {
      const app = act().with(Counter).build();
      const error = await app.do(name as never, { stream: "s", actor }, {} as never).then(
        () => undefined,
        (e) => e
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(`unknown action "${name}"`);
    }
  );
});
