/**
 * The Grafana dashboard for the `act.*` metrics, as Prometheus stores them
 * when they arrive over OTLP (its OTLP receiver, default name translation:
 * `act.action.duration` in seconds becomes `act_action_duration_seconds_*`,
 * a counter gets `_total`, the attribute `act.reaction` the label
 * `act_reaction`, the resource's `service.name` the label `job`).
 *
 * Written as code so Grafana's own schema types check it; `npm run
 * monitoring -w @act-root/act-otel` writes it to `act-dashboard.json`, the
 * file users import, and a test fails when the two differ.
 */
import type { Dashboard, Panel, RowPanel } from "@grafana/schema";

/** The data source the user picks when importing the dashboard. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's placeholder for the data source input, filled in on import.
const datasource = { type: "prometheus", uid: "${DS_PROMETHEUS}" };
/** Every query is limited to the services picked in the dashboard's `job` variable. */
const job = 'job=~"$job"';
const rate = (metric: string) => `rate(${metric}{${job}}[$__rate_interval])`;
const p99 = (metric: string, by: string) =>
  `histogram_quantile(0.99, sum by (le${by ? `, ${by}` : ""}) (${rate(`${metric}_bucket`)}))`;

/** Panels are laid out on Grafana's 24-column grid, two per row of 8 units. */
let y = 0;
let id = 0;
const row = (title: string): RowPanel => ({
  type: "row",
  id: ++id,
  title,
  collapsed: false,
  gridPos: { h: 1, w: 24, x: 0, y: y++ },
  panels: [],
});

type Query = { expr: string; legend: string };
const panel = (
  title: string,
  description: string,
  unit: string,
  queries: Query[],
  { type = "timeseries", half = "left" as "left" | "right" } = {}
): Panel => {
  const gridPos = { h: 8, w: 12, x: half === "left" ? 0 : 12, y };
  if (half === "right") y += 8;
  return {
    type,
    id: ++id,
    title,
    description,
    datasource,
    gridPos,
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: type === "stat" ? { reduceOptions: { calcs: ["lastNotNull"] }, colorMode: "background" } : {},
    targets: queries.map(({ expr, legend }, i) => ({
      datasource,
      refId: String.fromCharCode(65 + i),
      expr,
      legendFormat: legend,
    })),
  };
};

/** The dashboard: actions, reactions and drains, each in a row. */
const board: Dashboard = {
  title: "Act",
  uid: "act-overview",
  description: "Actions, reactions and drains of the apps instrumented with @act-root/act-otel.",
  tags: ["act", "event-sourcing"],
  editable: true,
  graphTooltip: 1,
  schemaVersion: 39,
  refresh: "30s",
  time: { from: "now-6h", to: "now" },
  templating: {
    list: [
      {
        type: "query",
        name: "job",
        label: "Service",
        datasource,
        query: "label_values(act_action_commits_total, job)",
        refresh: 2,
        includeAll: true,
        multi: true,
        current: { text: "All", value: "$__all" },
      },
    ],
  },
  panels: [
    row("Actions"),
    panel("Actions per second", "Actions run, by action (every outcome).", "ops", [
      { expr: `sum by (act_action) (${rate("act_action_duration_seconds_count")})`, legend: "{{act_action}}" },
    ]),
    panel(
      "Action outcomes",
      "Actions by outcome: committed, unchanged, or the error that refused them.",
      "ops",
      [{ expr: `sum by (act_outcome) (${rate("act_action_duration_seconds_count")})`, legend: "{{act_outcome}}" }],
      { half: "right" }
    ),
    panel("Action duration (p99)", "From validation to the snapshots returned, by action.", "s", [
      { expr: p99("act_action_duration_seconds", "act_action"), legend: "{{act_action}}" },
    ]),
    panel(
      "Concurrency conflicts",
      "Actions refused with a ConcurrencyError per second: another writer committed to the stream first.",
      "ops",
      [{ expr: `sum by (act_action) (${rate("act_action_conflicts_total")})`, legend: "{{act_action}}" }],
      { half: "right" }
    ),
    row("Reactions"),
    panel("Lag", "Events each reaction (and projection) still has to handle.", "short", [
      { expr: `max by (act_reaction) (act_reaction_lag{${job}})`, legend: "{{act_reaction}}" },
    ]),
    panel(
      "Blocked reaction streams",
      "Streams a failing reaction blocked: they wait for an operator (app.blocked(), app.unblock()).",
      "short",
      [{ expr: `max(act_reaction_streams_blocked{${job}})`, legend: "blocked" }],
      { type: "stat", half: "right" }
    ),
    panel("Reaction latency (p99)", "From an event's commit to the end of its reaction, by reaction.", "s", [
      { expr: p99("act_reaction_latency_seconds", "act_reaction"), legend: "{{act_reaction}}" },
    ]),
    panel(
      "Reaction runs",
      "Reaction runs per second by outcome: handled, retry, blocked or skipped.",
      "ops",
      [{ expr: `sum by (act_outcome) (${rate("act_reaction_duration_seconds_count")})`, legend: "{{act_outcome}}" }],
      { half: "right" }
    ),
    panel("Retries and blocks", "Failed runs that will be retried, and those that blocked their stream.", "ops", [
      { expr: `sum by (act_reaction) (${rate("act_reaction_retries_total")})`, legend: "retry {{act_reaction}}" },
      { expr: `sum by (act_reaction) (${rate("act_reaction_blocks_total")})`, legend: "block {{act_reaction}}" },
    ]),
    panel(
      "Reaction run duration (p99)",
      "One run of a reaction handler, or of a projection on a batch, by reaction.",
      "s",
      [{ expr: p99("act_reaction_duration_seconds", "act_reaction"), legend: "{{act_reaction}}" }],
      { half: "right" }
    ),
    row("Drains"),
    panel("Drain cycles", "Drain cycles per second: busy ones leased reaction streams, idle ones found none.", "ops", [
      { expr: `sum by (act_drain_idle) (${rate("act_drain_cycles_total")})`, legend: "idle={{act_drain_idle}}" },
    ]),
    panel(
      "Drain duration (p99) and leases",
      "How long busy drain cycles take, and reaction streams leased per second.",
      "s",
      [
        { expr: p99("act_drain_duration_seconds", ""), legend: "p99 duration" },
        { expr: `sum(${rate("act_drain_leases_total")})`, legend: "leases/s" },
      ],
      { half: "right" }
    ),
  ],
};

/**
 * The dashboard as Grafana exports it for sharing: the data source is an
 * input the user picks on import (`__inputs` is part of Grafana's export
 * format, not of the dashboard's schema).
 */
export const dashboard = {
  __inputs: [
    {
      name: "DS_PROMETHEUS",
      label: "Prometheus",
      description: "The Prometheus that receives the act.* metrics over OTLP.",
      type: "datasource",
      pluginId: "prometheus",
      pluginName: "Prometheus",
    },
  ],
  ...board,
};
