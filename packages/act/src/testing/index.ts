/**
 * `@act-root/act/testing` — helpers for testing apps built with Act, and
 * stores written for it: {@link settle} runs an app's reactions until
 * nothing is left to do, {@link projectEvents} runs a projection over given
 * events, {@link testClock} moves an app's time by hand for its timers, and
 * {@link storeConformance} registers the tests every `Store` adapter must pass.
 *
 * Importing it loads no test runner and changes nothing: the conformance
 * suite is handed the runner's functions when it is called.
 *
 * @packageDocumentation
 */
export { settle, type SettleOptions, type Settled } from "./settle.js";
export { SettleError, type SettleReason } from "./settle-error.js";
export { projectEvents, type GivenEvent } from "./project-events.js";
export { storeConformance } from "./store-conformance.js";
export { personalDataProof, type ProofTarget } from "./personal-conformance.js";
export { tenantConformance } from "./tenant-conformance.js";
export { testClock, type TestClock } from "./test-clock.js";
export type { TestApi } from "./test-api.js";
export type { ReadModelProbe } from "./read-model-probe.js";
