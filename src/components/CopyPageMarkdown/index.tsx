/**
 * "Copy page as Markdown": fetches the page's Markdown twin (`<page>.md`,
 * written at build time by src/plugins/llms-txt/index.ts) and puts it on the
 * clipboard, for pasting into an AI tool. The twin can also be opened.
 */
import { useState, type ReactNode } from "react";
import styles from "./styles.module.css";

export default function CopyPageMarkdown({ permalink }: { permalink: string }): ReactNode {
  const href = `${permalink.replace(/\/$/, "/index")}.md`;
  const [status, setStatus] = useState("");

  const copy = async () => {
    try {
      const response = await fetch(href);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      await navigator.clipboard.writeText(await response.text());
      setStatus("Copied");
    } catch {
      setStatus("Could not copy: open the Markdown instead");
    }
    window.setTimeout(() => setStatus(""), 4000);
  };

  return (
    <div className={styles.bar}>
      <button type="button" className={styles.button} onClick={copy}>
        Copy page as Markdown
      </button>
      <a className={styles.link} href={href} type="text/markdown">
        View as Markdown
      </a>
      <span className={styles.status} role="status" aria-live="polite">
        {status}
      </span>
    </div>
  );
}
