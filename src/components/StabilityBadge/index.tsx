/**
 * The stability of what a page documents, as a badge under the page's
 * actions: "Stable" (changes only as semantic versioning allows) or
 * "Experimental" (may change in any minor release). API pages get it from the
 * symbol's `@stable` / `@experimental` TSDoc tag (scripts/typedoc/front-matter.mjs
 * writes it to the page's front matter), guides from their own
 * `stability` front matter.
 */
import type { ReactNode } from "react";
import Link from "@docusaurus/Link";
import styles from "./styles.module.css";

/** The stability levels a page may declare. */
export const STABILITY = {
  stable: { label: "Stable", meaning: "changes only as semantic versioning allows" },
  experimental: { label: "Experimental", meaning: "may change in any minor release" },
} as const;

export type Stability = keyof typeof STABILITY;

/**
 * The level a page's front matter declares, or undefined when it declares
 * none; a value that is not a level stops the build, naming the page.
 */
export function stabilityOf(value: unknown, page: string): Stability | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && value in STABILITY) return value as Stability;
  throw new Error(
    `${page}: front matter "stability" must be one of ${Object.keys(STABILITY).join(", ")}, not ${JSON.stringify(value)}`
  );
}

export default function StabilityBadge({ stability }: { stability: Stability }): ReactNode {
  const { label, meaning } = STABILITY[stability];
  return (
    <p className={styles.stability} data-stability={stability}>
      <Link className={`${styles.badge} ${styles[stability]}`} to="/docs/guides/faq#stability-and-versioning">
        {label}
      </Link>{" "}
      <span className={styles.meaning}>{meaning}</span>
    </p>
  );
}
