import { describe, expect, it } from "vitest";
import { parseArgs } from "../src/server/args.js";

describe("act-inspector's command line", () => {
  it("reads the database, table and flags", () => {
    expect(
      parseArgs(["--pg", "postgres://x", "--schema", "s", "--table", "t", "--port", "4400", "--operations"])
    ).toEqual({
      pg: "postgres://x",
      schema: "s",
      table: "t",
      port: 4400,
      operations: true,
      help: false,
    });
    expect(parseArgs([], { ACT_INSPECTOR_PG: "postgres://env" })).toMatchObject({
      pg: "postgres://env",
      operations: false,
    });
  });

  it("says what is wrong", () => {
    expect(() => parseArgs([], {})).toThrow("give the database with --pg");
    expect(parseArgs(["--sqlite", "f.db"], { ACT_INSPECTOR_PG: "postgres://env" }).pg).toBeUndefined();
    expect(() => parseArgs(["--pg"], {})).toThrow("--pg needs a value");
    expect(() => parseArgs(["--pg", "x", "--port", "http"], {})).toThrow("--port must be a port number");
    expect(() => parseArgs(["--pg", "x", "--verbose"], {})).toThrow("unknown option --verbose");
    expect(() => parseArgs(["--sqlite", "f.db", "--pg", "x"], {})).toThrow("either --pg or --sqlite");
    expect(parseArgs(["--sqlite", "f.db"], { ACT_INSPECTOR_PG: "postgres://env" })).toMatchObject({ sqlite: "f.db" });
  });
});
