/**
 * The live calculator of `docs/examples/calculator.mdx`.
 *
 * This file is all the page itself loads: the calculator (the real
 * `@act-root/act` with its in-memory store, zod and the example's state) is
 * a separate chunk fetched by `React.lazy` once the page runs in a browser
 * and the calculator is on screen or within 200 px of it — a reader who
 * never scrolls to it on a phone does not pay for running it. So it adds
 * nothing to the HTML or to any other page. The placeholder has the
 * calculator's height, so nothing moves when it arrives.
 */
import BrowserOnly from "@docusaurus/BrowserOnly";
import { lazy, Suspense, useRef, type ReactNode } from "react";
import { useNearViewport } from "../../hooks/useNearViewport";
import styles from "./styles.module.css";

const Calculator = lazy(() => import("./Calculator"));

export default function LiveCalculator(): ReactNode {
  const frame = useRef<HTMLElement>(null);
  const near = useNearViewport(frame, "200px 0px");
  const placeholder = (
    <p className={styles.placeholder} role="status">
      Loading the live calculator…
    </p>
  );
  return (
    <section ref={frame} className={styles.frame} aria-label="Live calculator">
      <BrowserOnly fallback={placeholder}>
        {() =>
          near ? (
            <Suspense fallback={placeholder}>
              <Calculator />
            </Suspense>
          ) : (
            placeholder
          )
        }
      </BrowserOnly>
    </section>
  );
}
