// A left-to-right chain of labelled steps, rendered to plain HTML at build
// time: for small flows where a Mermaid diagram would cost the page its
// ~300 KB diagram library.
import type { ReactNode } from "react";
import styles from "./styles.module.css";

type Step = {
  /** What the step is, e.g. an action or an event. */
  title: ReactNode;
  /** A detail under it, e.g. its payload. */
  detail?: ReactNode;
  /** The verb on the arrow to the next step. */
  then?: string;
};

/** Renders `steps` as an ordered list of boxes joined by labelled arrows. */
export default function Flow({ steps, label }: { steps: Step[]; label: string }): ReactNode {
  return (
    <figure className={styles.flow}>
      <ol aria-label={label}>
        {steps.map(({ title, detail, then }, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the steps are fixed content of the page; they never reorder.
          <li key={i}>
            <span className={styles.step}>
              <strong>{title}</strong>
              {detail && <code>{detail}</code>}
            </span>
            {then && (
              <span className={styles.arrow}>
                <span>{then}</span>
              </span>
            )}
          </li>
        ))}
      </ol>
    </figure>
  );
}
