// The routes of an OpenAPI document as a table, rendered at build time from
// the document an example API serves (committed beside it and kept current
// by its test), so the HTTP guide shows the real document without an API
// explorer's scripts on the page.
import type { ReactNode } from "react";
import styles from "./styles.module.css";

/** The parts of an OpenAPI 3.1 document the table shows. */
export type OpenApiDocument = {
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, { operationId?: string; summary?: string; responses?: Record<string, { description?: string }> }>
  >;
};

/** One row per operation, in the document's order: method, path, summary, and the status codes it answers. */
export default function OpenApiRoutes({ document }: { document: OpenApiDocument }): ReactNode {
  const rows = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ path, method, operation }))
  );
  return (
    <table className={styles.routes}>
      <caption>
        {document.info.title} {document.info.version}: {rows.length} operations
      </caption>
      <thead>
        <tr>
          <th scope="col">route</th>
          <th scope="col">what</th>
          <th scope="col">answers</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ path, method, operation }) => (
          <tr key={`${method} ${path}`} id={operation.operationId}>
            <td>
              <code>
                {method.toUpperCase()} {path}
              </code>
            </td>
            <td>{operation.summary}</td>
            <td className={styles.codes}>{Object.keys(operation.responses ?? {}).join(" ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
