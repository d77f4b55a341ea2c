import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connection, identifier } from "../src/config.js";
import { InMemoryStore, ValidationError } from "@act-root/act";
import { PostgresStore, type PostgresStoreConfig } from "../src/index.js";

/** The error `create` throws. */
function refusal(create: () => unknown): Error {
  try {
    create();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the config to be refused");
}

describe("configuration", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("refuses a table name that would inject SQL, naming the field", () => {
    expect(() => new PostgresStore({ table: 'events"; DROP TABLE x; --' })).toThrow(
      /Invalid PostgresStore table "events\\"; DROP TABLE x; --": expected a plain SQL identifier/
    );
  });

  it("refuses bad schema names and over-long table names", () => {
    expect(() => new PostgresStore({ schema: "a b" })).toThrow(/Invalid PostgresStore schema "a b"/);
    expect(() => new PostgresStore({ schema: "1abc" })).toThrow(/schema/);
    expect(() => new PostgresStore({ schema: "" })).toThrow(/schema/);
    expect(() => new PostgresStore({ table: "t".repeat(49) })).toThrow(/table .* at most 48 characters/);
    expect(() => new PostgresStore({ table: "é" })).toThrow(/table/);
  });

  it("refuses a port that is not a port", () => {
    expect(() => new PostgresStore({ port: 70_000 })).toThrow(/Invalid PostgresStore port 70000/);
  });

  it("refuses the store options every store refuses, with the same error, naming the option", () => {
    for (const value of [Number.POSITIVE_INFINITY, Number.NaN, -1, 0]) {
      const refused = (() => {
        try {
          new PostgresStore({ idempotencyMillis: value });
        } catch (error) {
          return error as Error;
        }
      })();
      expect(refused).toBeInstanceOf(ValidationError);
      expect(refused?.message).toMatch(/^Invalid store options: idempotencyMillis: /);
      // The in-memory store refuses the same value with the same message.
      expect(() => new InMemoryStore({ idempotencyMillis: value })).toThrow(refused!.message);
    }
    expect(() => new PostgresStore({ slowWriterMillis: Number.NaN })).toThrow(/slowWriterMillis/);
    expect(() => new PostgresStore({ max: 0 })).toThrow(/max: must be at least 1/);
  });

  it("keeps the password and the connection string out of the error that refuses a config", () => {
    const password = "S3cretPw";
    const connectionString = `postgres://app:${password}@db.internal/orders`;
    const refusals = [
      { connectionString, max: 0 },
      { connectionString, password, user: "app", idleTimeoutMillis: -1 },
      { password, slowWriterMillis: Number.NaN },
      { connectionString, password, max: "ten" },
    ].map((config) => refusal(() => new PostgresStore(config as PostgresStoreConfig)));
    // A config given as a plain string (a URL where an object belongs) is refused without repeating it.
    refusals.push(refusal(() => new PostgresStore(connectionString as unknown as PostgresStoreConfig)));
    for (const error of refusals) {
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/^Invalid store options: /);
      // Everything a caller or a logger can reach from the error: its message
      // and stack, every own field, enumerable or not (the payload, which the
      // default logger writes at debug level, and the details), and its cause.
      const fields = error as unknown as Record<string, unknown>;
      const seen = [
        error.message,
        String(error.stack),
        JSON.stringify(error),
        ...Object.getOwnPropertyNames(error).map((key) => `${key}: ${JSON.stringify(fields[key])}`),
        inspect(error, { showHidden: true, depth: Number.POSITIVE_INFINITY }),
        inspect(error.cause, { showHidden: true, depth: Number.POSITIVE_INFINITY }),
      ].join("\n");
      expect(seen).not.toContain(password);
      expect(seen).not.toContain("postgres://");
      expect(seen).not.toContain("db.internal");
    }
    // What was wrong is still said, field by field.
    expect((refusals[0] as ValidationError).details).toEqual([{ path: "max", message: expect.any(String) }]);
    expect((refusals[0] as ValidationError).payload).toEqual({ max: 0 });
    expect(refusals[4].message).toMatch(/must be an object/);
  });

  it("quotes valid identifiers", () => {
    expect(identifier("table", "Events_2")).toBe('"Events_2"');
  });

  it("uses local defaults, then PG* variables, then explicit fields", () => {
    vi.stubEnv("PGHOST", "");
    vi.stubEnv("PGPORT", "");
    vi.stubEnv("PGDATABASE", "");
    vi.stubEnv("PGUSER", "");
    vi.stubEnv("PGPASSWORD", "");
    expect(connection({})).toMatchObject({
      host: "localhost",
      port: 5432,
      database: "postgres",
      user: "postgres",
      max: 10,
    });
    vi.stubEnv("PGHOST", "db");
    vi.stubEnv("PGPORT", "6543");
    vi.stubEnv("PGDATABASE", "app");
    vi.stubEnv("PGUSER", "me");
    vi.stubEnv("PGPASSWORD", "pw");
    expect(connection({})).toMatchObject({ host: "db", port: 6543, database: "app", user: "me", password: "pw" });
    expect(connection({ host: "h", port: 1, database: "d", user: "u", password: "p", max: 3 })).toMatchObject({
      host: "h",
      port: 1,
      database: "d",
      user: "u",
      password: "p",
      max: 3,
    });
    expect(connection({ connectionString: "postgres://x@y/z" })).toMatchObject({
      connectionString: "postgres://x@y/z",
    });
  });
});
