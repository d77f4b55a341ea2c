// Wrapped: on a page-chunk failure, Retry reloads the page so every failed chunk is fetched again (the stock Retry re-runs only the outermost route).
import type { ReactNode } from "react";
import Original from "@theme-original/Loading";
import type { LoadingComponentProps as Props } from "react-loadable";

export default function Loading(props: Props): ReactNode {
  if (!props.error) return <Original {...props} />;
  return (
    <div role="alert" className="alert alert--danger margin--lg">
      <p>{String(props.error)}</p>
      <button type="button" className="button button--danger" onClick={() => window.location.reload()}>
        Retry
      </button>
    </div>
  );
}
