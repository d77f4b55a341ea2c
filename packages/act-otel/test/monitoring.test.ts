/**
 * The Grafana dashboard and the Prometheus alert rules shipped in
 * `monitoring/`: they must load (Grafana's layout, the rule file's format),
 * parse as PromQL, and name only metrics and labels the instrumentation
 * really exports — a renamed metric or attribute would otherwise leave users
 * with empty panels and alerts that never fire.
 */
import { readFileSync } from "node:fs";
import { act, disposeAndExit, InMemoryStore, store } from "@act-root/act";
import { parser } from "@prometheus-io/lezer-promql";
import { DataPointType, type Histogram } from "@opentelemetry/sdk-metrics";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { dashboard } from "../monitoring/dashboard.js";
import { dashboardJson } from "../monitoring/write.js";
import { instrument, type Instrumented } from "../src/index.js";
import { DURATION_BUCKETS, LATENCY_BUCKETS } from "../src/names.js";
import { actor, Order } from "./fixtures/apps.js";
import { telemetry } from "./support.js";

const file = (name: string) => readFileSync(new URL(`../monitoring/${name}`, import.meta.url), "utf8");

/**
 * The series names Prometheus stores for an OTLP metric (its OTLP receiver's
 * default translation): dots become underscores, a unit in words is appended
 * (`s` → `_seconds`; annotations in braces such as `{event}` are dropped), a
 * monotonic sum gets `_total`, a histogram is stored as `_bucket`, `_sum` and
 * `_count` series.
 */
const prometheusNames = (name: string, unit: string, kind: "counter" | "gauge" | "histogram") => {
  let base = name.replace(/[^a-zA-Z0-9_:]/g, "_");
  const words = unit.startsWith("{") ? "" : ({ s: "seconds", ms: "milliseconds", By: "bytes" }[unit] ?? unit);
  if (words && !base.endsWith(`_${words}`)) base += `_${words}`;
  if (kind === "counter") return [`${base}_total`];
  if (kind === "histogram") return [`${base}_bucket`, `${base}_sum`, `${base}_count`];
  return [base];
};
const label = (attribute: string) => attribute.replace(/[^a-zA-Z0-9_]/g, "_");
/** Labels every series has (from the resource) or a histogram's buckets have. */
const COMMON = new Set(["job", "instance", "le"]);

/** Every exported series name with the labels its data points carry. */
const exported = new Map<string, Set<string>>();
const histograms: { name: string; boundaries: number[]; counts: number[] }[] = [];
let otel: ReturnType<typeof telemetry>;
let instrumented: Instrumented;

beforeAll(async () => {
  // One run that makes every instrument record: actions committed, refused
  // and in conflict, a reaction that retries and then blocks its stream,
  // idle and busy drains, and the gauges read at collection.
  await disposeAndExit();
  store(new InMemoryStore());
  otel = telemetry();
  const app = act()
    .with(Order)
    .on("Placed")
    .do(
      async function failing() {
        throw new Error("warehouse offline");
      },
      { maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 }
    )
    .to("warehouse")
    .on("Placed")
    .do(async function audit() {})
    .to("audit")
    .build();
  instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
  await app.do("place", { stream: "order-1", actor }, { sku: "cup" });
  await app.do("place", { stream: "order-1", actor }, { sku: "cup" }).catch(() => undefined);
  await app.do("place", { stream: "order-1", actor, expectedVersion: 7 }, { sku: "cup" }).catch(() => undefined);
  await app.drain();
  await new Promise((resolve) => setTimeout(resolve, 10));
  await app.drain();
  await app.drain();
  await app.do("place", { stream: "order-2", actor }, { sku: "cup" });

  await otel.points("act.action.duration");
  for (const metric of otel.metrics()) {
    const { name, unit } = metric.descriptor;
    const kind =
      metric.dataPointType === DataPointType.HISTOGRAM
        ? "histogram"
        : metric.dataPointType === DataPointType.SUM && metric.isMonotonic
          ? "counter"
          : "gauge";
    const labels = new Set(metric.dataPoints.flatMap((p) => Object.keys(p.attributes).map(label)));
    for (const series of prometheusNames(name, unit, kind)) exported.set(series, labels);
    if (kind === "histogram")
      histograms.push(
        ...metric.dataPoints.map((p) => {
          const value = p.value as Histogram;
          return { name, boundaries: value.buckets.boundaries, counts: value.buckets.counts };
        })
      );
  }
});

afterAll(async () => {
  instrumented?.stop();
  await otel.shutdown();
});

/** A PromQL expression's metric names and label names, or the places it does not parse. */
const promql = (expr: string) => {
  // Grafana's variables, as Grafana replaces them before sending the query.
  const text = expr.replaceAll("$__rate_interval", "5m").replaceAll("$job", ".*");
  const metrics = new Set<string>();
  const labels = new Set<string>();
  const errors: string[] = [];
  const cursor = parser.parse(text).cursor();
  do {
    const slice = text.slice(cursor.from, cursor.to);
    if (cursor.type.isError) errors.push(`at ${cursor.from}: "${text.slice(cursor.from, cursor.from + 20)}"`);
    if (cursor.name === "Identifier" && cursor.node.parent?.name === "VectorSelector") metrics.add(slice);
    if (cursor.name === "LabelName") labels.add(slice);
  } while (cursor.next());
  return { metrics, labels, errors };
};

/** Checks an expression against what the instrumentation exports; returns what is wrong. */
const wrong = (expr: string, extraLabels: string[] = []) => {
  const { metrics, labels, errors } = promql(expr);
  const problems = [...errors.map((e) => `does not parse ${e}`)];
  if (metrics.size === 0) problems.push("names no metric");
  const known = new Set(COMMON);
  for (const metric of metrics) {
    const has = exported.get(metric);
    if (!has) problems.push(`metric ${metric} is not exported`);
    else for (const l of has) known.add(l);
  }
  for (const l of [...labels, ...extraLabels]) if (!known.has(l)) problems.push(`label ${l} is on none of its metrics`);
  return problems;
};

describe("the instrumentation the monitoring files rely on", () => {
  it("exports every metric of the guide's table", () => {
    for (const name of [
      "act_action_duration_seconds_bucket",
      "act_action_commits_total",
      "act_action_conflicts_total",
      "act_action_events_bucket",
      "act_reaction_duration_seconds_bucket",
      "act_reaction_retries_total",
      "act_reaction_blocks_total",
      "act_reaction_lag",
      "act_reaction_streams_blocked",
      "act_drain_cycles_total",
      "act_drain_duration_seconds_bucket",
      "act_drain_leases_total",
    ])
      expect(exported.has(name), name).toBe(true);
  });

  it("records durations in buckets that resolve milliseconds, so a 99th percentile means something", () => {
    // The SDK's default boundaries (0, 5, 10 … 10,000) are meant for
    // milliseconds: in seconds every action would fall in one bucket.
    const actions = histograms.filter((h) => h.name === "act.action.duration");
    expect(actions.length).toBeGreaterThan(0);
    for (const h of [...actions, ...histograms.filter((h) => h.name === "act.reaction.duration")]) {
      expect(h.boundaries).toEqual(DURATION_BUCKETS);
      expect(h.counts).toHaveLength(DURATION_BUCKETS.length + 1);
    }
    expect(DURATION_BUCKETS[0]).toBeLessThanOrEqual(0.001);
    expect(DURATION_BUCKETS.at(-1)).toBeGreaterThanOrEqual(10);
  });

  it("gives the reaction latency buckets up to ten minutes", async () => {
    const app = act()
      .with(Order)
      .on("Placed")
      .do(async () => {})
      .to("audit")
      .build();
    instrumented.stop();
    instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    await app.do("place", { stream: "order-9", actor }, { sku: "pen" });
    await app.drain();
    const points = await otel.points("act.reaction.latency");
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect((p.value as Histogram).buckets.boundaries).toEqual(LATENCY_BUCKETS);
  });
});

describe("the Grafana dashboard", () => {
  const panels = dashboard.panels ?? [];
  const queries = panels.flatMap((p) =>
    "targets" in p
      ? (p.targets ?? []).map((t) => ({ panel: p.title, ...(t as { expr: string; legendFormat: string }) }))
      : []
  );

  it("is the committed act-dashboard.json (npm run monitoring -w @act-root/act-otel writes it)", () => {
    expect(JSON.parse(file("act-dashboard.json"))).toEqual(JSON.parse(dashboardJson()));
  });

  it("lays its panels on Grafana's 24-column grid, none over another, each with a unique id", () => {
    const cells = new Set<string>();
    for (const p of panels) {
      const { x = 0, y = 0, w = 0, h = 0 } = p.gridPos ?? {};
      expect(w, p.title).toBeGreaterThan(0);
      expect(h, p.title).toBeGreaterThan(0);
      expect(x + w, p.title).toBeLessThanOrEqual(24);
      for (let i = x; i < x + w; i++)
        for (let j = y; j < y + h; j++) {
          expect(cells.has(`${i},${j}`), `${p.title} overlaps at ${i},${j}`).toBe(false);
          cells.add(`${i},${j}`);
        }
    }
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("queries the data source chosen on import, in every panel and query", () => {
    expect(dashboard.__inputs.map((i) => i.name)).toEqual(["DS_PROMETHEUS"]);
    for (const p of panels.filter((p) => p.type !== "row")) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's placeholder for the data source input, filled in on import.
      expect(p.datasource, p.title).toEqual({ type: "prometheus", uid: "${DS_PROMETHEUS}" });
      expect(("targets" in p && p.targets?.length) || 0, p.title).toBeGreaterThan(0);
    }
  });

  it("asks only for metrics and labels the instrumentation exports, in valid PromQL", () => {
    expect(queries.length).toBeGreaterThan(10);
    for (const q of queries) {
      const legend = [...q.legendFormat.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
      expect(wrong(q.expr, legend), `${q.panel}: ${q.expr}`).toEqual([]);
    }
    const variable = dashboard.templating?.list?.[0];
    const inner = String(variable?.query).match(/^label_values\((\w+), (\w+)\)$/);
    expect(inner && exported.has(inner[1])).toBe(true);
  });

  it("would be caught naming a metric that does not exist", () => {
    expect(wrong("sum(rate(act_action_commit_total[5m]))")).toEqual(["metric act_action_commit_total is not exported"]);
    expect(wrong("sum by (act_stream) (act_reaction_lag)")).toEqual(["label act_stream is on none of its metrics"]);
    expect(wrong("sum by (act_reaction (act_reaction_lag)")[0]).toMatch(/^does not parse/);
  });
});

describe("the Prometheus alert rules", () => {
  const Rules = z.object({
    groups: z
      .array(
        z.object({
          name: z.string().min(1),
          rules: z
            .array(
              z
                .object({
                  alert: z.string().regex(/^Act[A-Z][A-Za-z]+$/),
                  expr: z.string().min(1),
                  for: z.string().regex(/^\d+[smh]$/),
                  labels: z.object({ severity: z.enum(["warning", "critical"]) }).strict(),
                  annotations: z.object({ summary: z.string().min(1), description: z.string().min(1) }).strict(),
                })
                .strict()
            )
            .min(1),
        })
      )
      .min(1),
  });
  const rules = Rules.parse(parse(file("act-alerts.yml")));
  const all = rules.groups.flatMap((g) => g.rules);

  it("is a rule file in Prometheus's format, with unique group and alert names", () => {
    expect(new Set(rules.groups.map((g) => g.name)).size).toBe(rules.groups.length);
    expect(new Set(all.map((r) => r.alert)).size).toBe(all.length);
    expect(all.map((r) => r.alert)).toEqual(
      expect.arrayContaining(["ActReactionStreamBlocked", "ActReactionLagHigh", "ActDrainsStopped"])
    );
  });

  it("alerts only on metrics and labels the instrumentation exports, in valid PromQL", () => {
    for (const rule of all) {
      const templated = [...`${rule.annotations.summary} ${rule.annotations.description}`.matchAll(/\$labels\.(\w+)/g)];
      expect(
        wrong(
          rule.expr,
          templated.map((m) => m[1])
        ),
        `${rule.alert}: ${rule.expr}`
      ).toEqual([]);
    }
  });
});
