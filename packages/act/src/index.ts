/**
 * Act — Fluent Event Sourcing for TypeScript.
 *
 * Build states with {@link state}, compose them into an app with {@link act},
 * and run it against the {@link store} port (in memory by default).
 *
 * @packageDocumentation
 */
export * from "./types/index.js";
export * from "./environment.js";
export * from "./errors.js";
export * from "./schemas.js";
export { patch, validate, extend, sleep } from "./utils.js";
export { config } from "./config.js";
export { port, store, logger, dispose, disposeAndExit } from "./ports.js";
export { InMemoryStore } from "./stores/in-memory.js";
export { build_tracer } from "./tracer.js";
export { observe } from "./instrumentation.js";
export { Act, type Lifecycle } from "./act.js";
export {
  state,
  type StateInitStep,
  type StateEmitsStep,
  type StatePatchStep,
  type StateBuilder,
  type ActionBuilder,
  type ActionEmitStep,
  type StateBuildStep,
} from "./state-builder.js";
export { upcaster } from "./upcaster.js";
export {
  projection,
  type Projection,
  type ProjectionBuilder,
  type ProjectionHandler,
  type ProjectionBatchHandler,
  type ProjectionOptions,
} from "./projection.js";
export type { RebuildOptions, RebuildProgress } from "./rebuild.js";
export type { SettledOptions } from "./settled.js";
export {
  act,
  type ActBuilder,
  type BuildOptions,
  type ReactionDoStep,
  type ReactionNaming,
  type ReactionStep,
} from "./act-builder.js";
