/**
 * Causation across processes on PostgreSQL: one process places an order,
 * another drains the orders app (its reaction reserves stock), and this one
 * drains the shipping app. Each has its own SDK and tracer; the only thing
 * that carries the trace from one to the next is the event in the database.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { disposeAndExit, store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgServer, startServer } from "../../act-pg/tools/pg-server.js";
import { instrument } from "../src/index.js";
import { shipping } from "./fixtures/apps.js";
import { parentOf, telemetry } from "./support.js";

const TABLE = "otel_chain";
const script = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));

type Recorded = {
  name: string;
  traceId: string;
  spanId: string;
  parent?: string;
  links: Array<{ traceId: string; spanId: string }>;
  attributes: Record<string, unknown>;
  pid: number;
};

let server: PgServer | undefined;
let url: string | undefined;

beforeAll(async () => {
  // The server DATABASE_URL or PGHOST names, else a disposable one for this file.
  if (process.env.DATABASE_URL || process.env.PGHOST) url = process.env.DATABASE_URL || undefined;
  else {
    server = await startServer();
    url = server.url;
  }
  await disposeAndExit();
  store(new PostgresStore({ connectionString: url, table: TABLE }));
  await store().drop();
  await store().seed();
}, 120_000);

afterAll(async () => {
  await store().drop();
  await disposeAndExit();
  await server?.stop();
});

/** Runs one step in a process of its own and returns the spans it recorded. */
function step(role: "place" | "drain"): Promise<Recorded[]> {
  const child = fork(script, [], {
    cwd,
    execArgv: ["--import", "tsx"],
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
      DATABASE_URL: url ?? "",
      TABLE,
      ROLE: role,
      NODE_ENV: "test",
      LOG_LEVEL: "fatal",
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  let spans: Recorded[] | undefined;
  child.on("message", (message) => (spans = message as Recorded[]));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      spans && code === 0 ? resolve(spans) : reject(new Error(`worker "${role}" exited ${code}: ${output}`))
    )
  );
}

const only = (spans: Recorded[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0];
};

describe("on PostgreSQL, across three processes", () => {
  it("links each reaction's span to the action that committed its event in another process", async () => {
    const placed = await step("place");
    const drained = await step("drain");

    const otel = telemetry();
    const app = shipping();
    const instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    try {
      const { acked } = await app.drain();
      expect(acked).toHaveLength(1);
    } finally {
      instrumented.stop();
    }

    const place = only(placed, "do place");
    const processPlaced = only(drained, "process Placed");
    const reserve = only(drained, "do reserve");
    const processReserved = otel.span("process Reserved");
    const ship = otel.span("do ship");

    // Three processes, three tracers.
    expect(new Set([place.pid, processPlaced.pid, process.pid]).size).toBe(3);
    // The second process's reaction links to the first process's action …
    expect(processPlaced.links).toEqual([{ traceId: place.traceId, spanId: place.spanId }]);
    expect(processPlaced.traceId).not.toBe(place.traceId);
    expect(reserve.parent).toBe(processPlaced.spanId);
    // … and this process's reaction to the second process's action.
    expect(processReserved.kind).toBe(SpanKind.CONSUMER);
    expect(processReserved.links.map((l) => l.context)).toMatchObject([
      { traceId: reserve.traceId, spanId: reserve.spanId, isRemote: true },
    ]);
    expect(parentOf(ship)).toBe(processReserved.spanContext().spanId);

    // The store calls are PostgreSQL client spans.
    const commit = placed.find((s) => s.name === "commit")!;
    expect(commit.attributes).toMatchObject({ "db.system.name": "postgresql", "act.stream": "order-pg" });
    expect(commit.parent).toBe(place.spanId);
    await otel.shutdown();
  });
});
