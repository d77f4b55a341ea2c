// Code the site loads on demand (a chunk behind a dynamic import) is asked
// for from several places: a preload, a render, a reader's gesture. This
// keeps one load per page, hands back what it loaded to later callers at
// once, and forgets a failed load, so the next request tries again.

/**
 * `load` once: call it to get the value; `current()` is the value once
 * loaded, `started()` whether a load is under way or done.
 */
export type Once<T> = { (): Promise<T>; current(): T | undefined; started(): boolean };

export function loadOnce<T>(load: () => Promise<T>): Once<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  const get = () => {
    loading ??= load().then(
      (loaded) => {
        value = loaded;
        return loaded;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      }
    );
    return loading;
  };
  return Object.assign(get, { current: () => value, started: () => loading !== undefined });
}
