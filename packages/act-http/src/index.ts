/**
 * `@act-root/act-http`: an Act app's actions, streams and reads over HTTP,
 * on Hono and web standards only — safe by default, typed from the app,
 * with its OpenAPI 3.1 document.
 */
export { type Authenticate, bearerTokens } from "./auth.js";
export { type ActHttp, http } from "./http.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
export type { OpenApiDocument } from "./openapi.js";
export { type FieldError, HttpErrors, HttpProblem, type Problem } from "./problem.js";
export {
  type ActionRequest,
  type ActionRoute,
  type Loaded,
  type ReadRequest,
  type ReadRoute,
  read,
  type StreamRequest,
  type StreamRoute,
  stream,
} from "./routes/types.js";
export type { ApiInfo, EventsOptions, HttpOptions, WaitOptions } from "./settings.js";
export { etag } from "./versions.js";
