/**
 * Errors carry payloads and states for the caller; logs get names, ids and
 * field paths, and the data only at debug level.
 */
import { execFile } from "node:child_process";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { errorSerializer } from "../src/core/ports.js";
import { act, ConcurrencyError, InvariantError, state, ValidationError } from "../src/index.js";
import { actor, freshStore } from "./fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const SECRET = "123-45-6789";

const Person = state("Person", z.object({ ssn: z.string().optional(), locked: z.boolean() }))
  .init(() => ({ locked: true }))
  .emits({ Registered: z.object({ ssn: z.string() }) })
  .patch({ Registered: (e) => ({ ssn: e.data.ssn }) })
  .on("register", z.object({ ssn: z.string().regex(/^\d{3}-\d{2}-\d{4}$/) }))
  .given([{ description: "the record must be unlocked", valid: (s) => !s.locked }])
  .emit(({ ssn }) => ["Registered", { ssn }])
  .build();

/** What pino writes for `logger.error(error, message)` with Act's serializer. */
function logged(error: unknown, debug: boolean): string {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _, done) {
      lines.push(String(chunk));
      done();
    },
  });
  pino({ level: debug ? "debug" : "info", serializers: { err: errorSerializer(debug) } }, sink).error(
    error,
    "action failed"
  );
  return lines.join("");
}

async function failure(run: () => Promise<unknown>) {
  return run().then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as Error
  );
}

describe("errors in logs", () => {
  it("an invariant error keeps payload, target and state for the caller, and logs the action, stream and rule", async () => {
    const app = act().with(Person).build();
    const error = (await failure(() =>
      app.do("register", { stream: "p-1", actor }, { ssn: SECRET })
    )) as InvariantError;
    expect(error).toBeInstanceOf(InvariantError);
    expect(error.payload).toEqual({ ssn: SECRET });
    expect(error.target.stream).toBe("p-1");
    expect(error.snapshot.state).toEqual({ locked: true });
    expect(JSON.stringify(error)).not.toContain(SECRET);
    const line = logged(error, false);
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(actor.name);
    expect(line).toContain("the record must be unlocked");
    expect(line).toContain("p-1");
    expect(logged(error, true)).toContain(SECRET);
  });

  it("a validation error logs the field paths, not the rejected value", async () => {
    const app = act().with(Person).build();
    const bad = `${SECRET}x`;
    const error = (await failure(() => app.do("register", { stream: "p-2", actor }, { ssn: bad }))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.payload).toEqual({ ssn: bad });
    const line = logged(error, false);
    expect(line).not.toContain(bad);
    expect(JSON.parse(line).err.details).toEqual([{ path: "ssn", message: expect.any(String) }]);
    expect(logged(error, true)).toContain(bad);
  });

  it("a concurrency error logs the event names, not their data", () => {
    const error = new ConcurrencyError("p-3", 2, [{ name: "Registered", data: { ssn: SECRET } }], 1);
    expect(error.events[0].data).toEqual({ ssn: SECRET });
    const line = logged(error, false);
    expect(line).not.toContain(SECRET);
    expect(line).toContain("Registered");
  });
});

/** What the library's own logger, built from the environment, writes to stdout for two failed actions. */
async function defaultLogger(level: string): Promise<Array<{ level: number; err: Record<string, unknown> }>> {
  const tsx = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url));
  const program = fileURLToPath(new URL("./fixtures/log-errors.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(tsx, [program, SECRET], {
    env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: level },
  });
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "action failed");
}

describe("the default logger", () => {
  it("writes the names, rules and field paths at info level, and the payload and state only at debug", async () => {
    const [invariant, validation] = await defaultLogger("info");
    expect(invariant.err).toMatchObject({ type: "InvariantError", message: expect.stringContaining("unlocked") });
    expect(validation.err).toMatchObject({ type: "ValidationError", details: [{ path: "ssn" }] });
    for (const { err } of [invariant, validation]) {
      expect(JSON.stringify(err)).not.toContain(SECRET);
      expect(err).not.toHaveProperty("payload");
      expect(err).not.toHaveProperty("snapshot");
    }

    const [invariantDebug, validationDebug] = await defaultLogger("debug");
    expect(invariantDebug.err).toMatchObject({ payload: { ssn: SECRET }, snapshot: { state: { ssn: SECRET } } });
    expect(validationDebug.err).toMatchObject({ payload: { ssn: `${SECRET}x` } });
  }, 60_000);
});
