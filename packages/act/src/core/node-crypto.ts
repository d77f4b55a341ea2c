/**
 * `node:crypto` where the runtime offers it through `process.getBuiltinModule`
 * (Node 20.16+, Deno, Bun), undefined elsewhere (a browser, an edge runtime
 * without it). Found without importing `node:crypto`, so bundles for the
 * browser carry no reference to it, and looked up at the first call rather
 * than when the module loads.
 *
 * Why it is worth having beside WebCrypto: a WebCrypto call is a job on the
 * thread pool, 30–60 µs each on a busy machine and answered only after the
 * event loop's next turn for I/O; `node:crypto`'s hashes and ciphers run
 * synchronously in microseconds.
 */
type NodeCrypto = typeof import("node:crypto");

let found: { crypto?: NodeCrypto } | undefined;

/** The runtime's `node:crypto`, if it offers one. */
export function nodeCrypto(): NodeCrypto | undefined {
  if (!found) {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    found = {
      crypto:
        typeof runtime?.getBuiltinModule === "function"
          ? (runtime.getBuiltinModule("node:crypto") as NodeCrypto | undefined)
          : undefined,
    };
  }
  return found.crypto;
}
