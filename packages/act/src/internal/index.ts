/**
 * `@act-root/act/internal` — the checks and encoders the stores of this
 * repository (`@act-root/act-pg`, `@act-root/act-sqlite`) share with the
 * core, so that every store refuses the same inputs with the same errors.
 *
 * Not part of the stable API: these may change in any release, together
 * with the stores that use them. A store written elsewhere may use them at
 * that price — the conformance suite (`@act-root/act/testing`) is what a
 * store must pass either way.
 *
 * @packageDocumentation
 */
export { checkCommit, checkDiscovery, checkName, checkOptions, OptionSchemas } from "../core/inputs.js";
export { stringifyJson } from "../core/json.js";
export { checkArchiveMove, checkPurge } from "../core/archive-inputs.js";
export {
  checkNow,
  checkScheduled,
  checkTimerChanges,
  checkTimerClaim,
  checkTimerIds,
  checkTimerOutcomes,
} from "../core/timer-inputs.js";
export { checkTenantId } from "../tenants/tenant-id.js";
