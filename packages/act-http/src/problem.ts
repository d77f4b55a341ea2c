/**
 * Errors as RFC 9457 problem documents (`application/problem+json`): one
 * shape for every refusal, with Act's error code and, for a bad input, the
 * path of each bad field. Nothing from a stack trace or the store reaches a
 * client: an unexpected error becomes a generic 500 and is logged on the
 * server only.
 */
import {
  ConcurrencyError,
  Errors,
  IdempotencyKeyReusedError,
  InvariantError,
  StoreError,
  ValidationError,
} from "@act-root/act";

/**
 * The codes of the refusals the HTTP layer itself makes, beside Act's own
 * {@link Errors} codes: each problem document carries one of them in `code`.
 *
 * @experimental
 * @example
 * ```ts
 * const code: string = HttpErrors.Unauthorized; // "ERR_UNAUTHORIZED"
 * ```
 */
export const HttpErrors = {
  /** No credentials, or credentials the `authenticate` hook did not accept. */
  Unauthorized: "ERR_UNAUTHORIZED",
  /** The caller is known, and the `authorize` rule of the route said no. */
  Forbidden: "ERR_FORBIDDEN",
  /** No such route, action, state, read or stream. */
  NotFound: "ERR_NOT_FOUND",
  /** The body is larger than the limit, or a field breaks a limit. */
  TooLarge: "ERR_TOO_LARGE",
  /** A request the HTTP layer cannot read: not JSON, a bad header, a bad query. */
  BadRequest: "ERR_BAD_REQUEST",
  /** The body is not `application/json`. */
  UnsupportedMediaType: "ERR_UNSUPPORTED_MEDIA_TYPE",
  /** The server is stopping or has too many open connections of this kind. */
  Unavailable: "ERR_UNAVAILABLE",
  /** Something failed on the server; the details are in the server's log only. */
  Internal: "ERR_INTERNAL",
} as const;

/**
 * One bad field of a request: where it is (`path`, dotted as zod reports
 * it, e.g. `items.0.sku`; empty for the whole value) and what is wrong.
 *
 * @experimental
 * @example
 * ```ts
 * const bad: FieldError = { path: "title", message: "Too small: expected string to have >=1 characters" };
 * ```
 */
export type FieldError = {
  /** The field's path, dotted (`items.0.sku`); empty for the whole value. */
  path: string;
  /** What is wrong with it. */
  message: string;
};

/**
 * One problem document (RFC 9457), as every error answer carries it.
 *
 * @experimental
 * @example
 * ```ts
 * const problem: Problem = { type: "about:blank", title: "Forbidden", status: 403, code: "ERR_FORBIDDEN", detail: "not yours" };
 * ```
 */
export type Problem = {
  /** Always `about:blank`: the HTTP status and `code` say what kind of problem it is. */
  type: "about:blank";
  /** The status's reason phrase, e.g. `Unprocessable Content`. */
  title: string;
  /** The HTTP status code, repeated for clients that log bodies only. */
  status: number;
  /** An Act code (`ERR_VALIDATION`, `ERR_INVARIANT`, …) or one of {@link HttpErrors}. */
  code: string;
  /** What went wrong, for a person reading it. */
  detail: string;
  /** For a bad input: each bad field's path (dotted, as zod reports it) and what is wrong with it. */
  errors?: FieldError[];
  /** For a version conflict: the stream's current version. */
  version?: number;
};

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/**
 * A refusal with its status and code, thrown inside a route and turned into
 * a problem document by the error handler.
 *
 * @experimental
 * @example
 * ```ts
 * throw new HttpProblem(403, HttpErrors.Forbidden, "only the ticket's customer may read it");
 * ```
 */
export class HttpProblem extends Error {
  /**
   * @param status - the HTTP status
   * @param code - the problem's code (one of {@link HttpErrors} or an Act code)
   * @param detail - what went wrong, for a person
   * @param errors - for a bad input, each bad field
   */
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[]
  ) {
    super(detail);
    this.name = code;
  }
}

/** A problem document for a status, code and detail. */
export function problem(
  status: number,
  code: string,
  detail: string,
  extra: Pick<Problem, "errors" | "version"> = {}
): Problem {
  return { type: "about:blank", title: TITLES[status] ?? "Error", status, code, detail, ...extra };
}

/**
 * What a client may learn from an error: the status, and the problem
 * document. Act's typed errors map to their statuses (validation 400,
 * invariant 422, version conflict 412, a reused idempotency key 422, a store
 * that may recover 503); anything else is a 500 whose detail says nothing
 * about the cause. `logged` says whether the server should log it.
 */
export function toProblem(error: unknown): { problem: Problem; logged: boolean } {
  if (error instanceof HttpProblem)
    return {
      problem: problem(error.status, error.code, error.detail, error.errors ? { errors: error.errors } : {}),
      logged: false,
    };
  if (error instanceof ValidationError)
    return {
      problem: problem(400, Errors.ValidationError, `Invalid ${error.target}`, { errors: error.details }),
      logged: false,
    };
  if (error instanceof InvariantError)
    // Understood, and the state's rules refuse it now: the rule's description is written for users.
    return { problem: problem(422, Errors.InvariantError, error.description), logged: false };
  if (error instanceof IdempotencyKeyReusedError)
    // A client bug, not a retry: the key came with another action, actor or payload.
    return {
      problem: problem(
        422,
        Errors.IdempotencyKeyReusedError,
        "This Idempotency-Key was already used for another request on this stream; use a new key for a new request"
      ),
      logged: false,
    };
  if (error instanceof ConcurrencyError)
    return {
      problem: problem(
        412,
        Errors.ConcurrencyError,
        "The stream changed since the version in If-Match; read it again",
        {
          version: error.lastVersion,
        }
      ),
      logged: false,
    };
  if (error instanceof StoreError && error.retryable)
    return { problem: problem(503, Errors.StoreError, "The store is unavailable; retry later"), logged: true };
  return { problem: problem(500, HttpErrors.Internal, "Internal error"), logged: true };
}

/** The version a typed Act error knows for its stream, for the ETag of an error answer. */
export function versionOf(error: unknown): number | undefined {
  if (error instanceof ConcurrencyError) return error.lastVersion;
  if (error instanceof InvariantError) return error.snapshot.event?.version ?? -1;
  return undefined;
}
