/**
 * The live calculator of `docs/examples/calculator.mdx` (issue 6, item 2).
 *
 * This file is all the page itself loads: the calculator (the real
 * `@act-root/act` with its in-memory store, zod and the example's state) is
 * a separate chunk fetched by `React.lazy` once the page runs in a browser,
 * so it adds nothing to the HTML or to any other page. The placeholder has
 * the calculator's height, so nothing moves when it arrives.
 */
import BrowserOnly from "@docusaurus/BrowserOnly";
import React, { lazy, Suspense, type ReactNode } from "react";
import styles from "./styles.module.css";

const Calculator = lazy(() => import("./Calculator"));

export default function LiveCalculator(): ReactNode {
  const placeholder = (
    <p className={styles.placeholder} role="status">
      Loading the live calculator…
    </p>
  );
  return (
    <section className={styles.frame} aria-label="Live calculator">
      <BrowserOnly fallback={placeholder}>
        {() => (
          <Suspense fallback={placeholder}>
            <Calculator />
          </Suspense>
        )}
      </BrowserOnly>
    </section>
  );
}
