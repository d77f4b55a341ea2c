export * from "./action.js";
export * from "./config.js";
export * from "./errors.js";
export * from "./instrumentation.js";
export * from "./ports.js";
export * from "./reaction.js";
export * from "./schemas.js";
