export * from "./action.js";
export * from "./config.js";
export * from "./instrumentation.js";
export * from "./ports.js";
export * from "./reaction.js";
