/**
 * Errors carry payloads and states for the caller; logs get names, ids and
 * field paths, and the data only at debug level.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { errorSerializer } from "../src/ports.js";
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
