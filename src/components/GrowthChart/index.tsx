// A line chart of how one cost grows with the log, drawn as inline SVG at
// build time from the JSON the growth benchmark prints (`npm run bench`), so
// the page shows measured figures without a chart library or a screenshot.
import type { ReactNode } from "react";
import styles from "./styles.module.css";

/** One store's rows, as the growth benchmark prints them. */
export type GrowthRun = { growth: string; rows: Array<Record<string, number>> };

const WIDTH = 560;
const HEIGHT = 240;
const PAD = { left: 56, right: 16, top: 16, bottom: 40 };
const COLORS = ["#2e8555", "#1f6fd1", "#c2410c", "#7c3aed"];

const label = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(Math.round(n * 100) / 100);

/**
 * Plots `metric` against the number of events in the log (a log scale), one
 * line per store, each relative to its figure on the smallest log (1 means
 * the cost did not grow), so stores of very different speeds share one
 * axis. The page keeps a table of the absolute figures next to it.
 */
export default function GrowthChart({
  runs,
  metric,
  title,
}: {
  runs: GrowthRun[];
  metric: string;
  title: string;
}): ReactNode {
  const relative = runs.map((run) => ({
    name: run.growth,
    rows: run.rows.map((row) => ({ events: row.events, value: row[metric] / (run.rows[0][metric] || 1) })),
  }));
  const points = relative.flatMap((r) => r.rows.map((row) => [row.events, row.value] as const));
  const xs = points.map(([x]) => Math.log10(x));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const top = Math.max(...points.map(([, y]) => y)) * 1.1 || 1;
  const sx = (x: number) => PAD.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (WIDTH - PAD.left - PAD.right);
  const sy = (y: number) => HEIGHT - PAD.bottom - (y / top) * (HEIGHT - PAD.top - PAD.bottom);
  const sizes = [...new Set(points.map(([x]) => x))].sort((a, b) => a - b);
  return (
    <figure className={styles.chart}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
        <line x1={PAD.left} y1={sy(0)} x2={WIDTH - PAD.right} y2={sy(0)} className={styles.axis} />
        <line x1={PAD.left} y1={sy(0)} x2={PAD.left} y2={PAD.top} className={styles.axis} />
        {[0, 0.5, 1].map((f) => (
          <text key={f} x={PAD.left - 6} y={sy(top * f) + 4} textAnchor="end" className={styles.tick}>
            {`${label((top / 1.1) * f)}×`}
          </text>
        ))}
        {sizes.map((x) => (
          <text key={x} x={sx(x)} y={HEIGHT - PAD.bottom + 16} textAnchor="middle" className={styles.tick}>
            {label(x)}
          </text>
        ))}
        <text x={(WIDTH + PAD.left) / 2} y={HEIGHT - 6} textAnchor="middle" className={styles.tick}>
          events in the log
        </text>
        {relative.map((run, i) => (
          <g key={run.name} stroke={COLORS[i % COLORS.length]} fill={COLORS[i % COLORS.length]}>
            <polyline
              fill="none"
              strokeWidth={2}
              points={run.rows.map((row) => `${sx(row.events)},${sy(row.value)}`).join(" ")}
            />
            {run.rows.map((row) => (
              <circle key={row.events} cx={sx(row.events)} cy={sy(row.value)} r={3} />
            ))}
            <text
              x={WIDTH - PAD.right}
              y={PAD.top + 14 * i}
              textAnchor="end"
              stroke="none"
              className={styles.legend}
              style={{ fill: COLORS[i % COLORS.length] }}
            >
              {run.name}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}
