/**
 * The live calculator of `docs/examples/calculator.mdx`.
 *
 * The page's HTML holds the calculator's real face (./CalculatorView.tsx),
 * with the same size and keys as the live one. Its code — the real
 * `@act-root/act` on its in-memory store, zod, the example's state — is a
 * chunk of its own, fetched when the reader starts to use the calculator
 * (./useCalculator.ts, src/hooks/useFirstUse.ts): loading the page, even
 * scrolling past the calculator, costs nothing, and a key pressed before
 * the code has arrived is applied once it has.
 */
import type { ReactNode } from "react";
import { useFirstUse } from "../../hooks/useFirstUse";
import CalculatorView from "./CalculatorView";
import styles from "./styles.module.css";
import { type Calculator, useCalculator } from "./useCalculator";

/** The status line: the code failing to load, loading while keys wait, or the last refusal. */
function status({ code, waiting, message, retry }: Calculator): ReactNode {
  if (code === "failed")
    return (
      <span role="alert">
        The calculator's code did not load.{" "}
        <button type="button" className={styles.retry} onClick={retry}>
          Retry
        </button>
      </span>
    );
  if (waiting && code === "loading") return "Loading the calculator…";
  return message;
}

export default function LiveCalculator(): ReactNode {
  const calculator = useCalculator();
  const firstUse = useFirstUse(calculator.start);
  return (
    <section className={styles.frame} aria-label="Live calculator" {...firstUse}>
      <CalculatorView
        stream={calculator.stream}
        view={calculator.view}
        message={status(calculator)}
        onKey={calculator.press}
        onReset={calculator.reset}
      />
    </section>
  );
}
