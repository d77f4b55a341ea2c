export * from "./action.js";
export * from "./app.js";
export * from "./config.js";
export * from "./instrumentation.js";
export * from "./lifecycle.js";
export * from "./ports.js";
export * from "./projection.js";
export * from "./reaction.js";
