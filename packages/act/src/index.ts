/**
 * Act — Fluent Event Sourcing for TypeScript.
 *
 * Build states with {@link state}, compose them into an app with {@link act},
 * and run it against the {@link store} port (in memory by default).
 *
 * @packageDocumentation
 */
export * from "./types/index.js";
export * from "./core/environment.js";
export * from "./core/errors.js";
export * from "./core/closed-streams.js";
export * from "./core/schemas.js";
export { FORGOTTEN } from "./core/forgotten.js";
export { patch, validate, extend, sleep } from "./core/utils.js";
export { config } from "./core/config.js";
export { port, store, logger, dispose, disposeAndExit } from "./core/ports.js";
export { InMemoryStore } from "./stores/in-memory.js";
export { build_tracer } from "./instrumentation/tracer.js";
export { observe } from "./instrumentation/instrumentation.js";
export { Act } from "./act.js";
export {
  state,
  type StateInitStep,
  type StateEmitsStep,
  type StatePatchStep,
  type StateBuilder,
  type ActionBuilder,
  type ActionEmitStep,
  type StateBuildStep,
} from "./builders/state-builder.js";
export { upcaster } from "./builders/upcaster.js";
export { forgettable } from "./builders/personal.js";
export { Closing, ClosedSchema } from "./builders/closing.js";
export {
  projection,
  type Projection,
  type ProjectionBuilder,
  type ProjectionHandler,
  type ProjectionBatchHandler,
  type ProjectionOptions,
} from "./builders/projection.js";
export type { RebuildOptions, RebuildProgress } from "./projections/rebuild.js";
export type { SettledOptions } from "./reactions/settled.js";
export {
  act,
  type ActBuilder,
  type BuildOptions,
  type ReactionDoStep,
  type ReactionNaming,
  type ReactionStep,
  type TenantsOptions,
} from "./act-builder.js";
export { copyStore, type CopyOptions, type CopyProgress, type CopyReport } from "./copying/copy-store.js";
export { CopyError } from "./copying/copy-error.js";
export { logDigest, type LogDigest } from "./copying/log-digest.js";
export {
  Tenants,
  type AddTenantOptions,
  type TenantConsumerOptions,
  type TenantRemoval,
} from "./tenants/tenants.js";
export { TenantError, type TenantRefusal } from "./tenants/tenant-error.js";
export type { TenantStores } from "./tenants/tenant-stores.js";
