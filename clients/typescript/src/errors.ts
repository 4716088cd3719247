/**
 * The errors of graphmem, as the Python package names them (graphmem/errors.py), for the
 * refusals of `graphmem serve`: 400 and 422 InvalidInputError, 401 and 403 AccessError, 409
 * ConflictError, 413 and 429 RequestRefusedError, 502 ModelError, 503 (or no answer at all)
 * StoreUnavailableError, any other status StoreError.
 */

/** What the server said about a refusal, when it answered one. */
export interface Refusal {
  /** The HTTP status. */
  status: number;
  /** The error's code in the answer (`invalid_input`, `forbidden`...). */
  code?: string;
  /** The request field at fault, for a 422. */
  field?: string;
  /** The id of the request, which the server's log line carries too. */
  requestId?: string;
}

/** Root of every error graphmem raises. */
export class GraphMemError extends Error {
  /** What the server answered, or undefined when it could not be reached. */
  readonly refusal: Refusal | undefined;

  /** An error with this message, and the refusal it comes from if the server answered. */
  constructor(message: string, refusal?: Refusal) {
    super(message);
    this.name = new.target.name;
    this.refusal = refusal;
  }
}

/** The caller's input is invalid; the message names the problem. */
export class InvalidInputError extends GraphMemError {}

/** The input contradicts what is already stored. */
export class ConflictError extends GraphMemError {}

/** The store refused an operation or holds data it cannot read. */
export class StoreError extends GraphMemError {}

/** The store could not be reached (or the server itself could not). */
export class StoreUnavailableError extends StoreError {}

/** graphmem serve refused the request's key (HTTP 401 or 403). */
export class AccessError extends GraphMemError {}

/** graphmem serve refused the request as too large (413) or too frequent (429). */
export class RequestRefusedError extends GraphMemError {}

/** An embedding or language-model endpoint failed after its retries. */
export class ModelError extends GraphMemError {}

/** The error each refusal of the server is raised as (any other status: StoreError). */
export const ERRORS: Readonly<Record<number, typeof GraphMemError>> = {
  400: InvalidInputError,
  401: AccessError,
  403: AccessError,
  408: RequestRefusedError,
  409: ConflictError,
  413: RequestRefusedError,
  415: InvalidInputError,
  421: AccessError,
  422: InvalidInputError,
  429: RequestRefusedError,
  502: ModelError,
  503: StoreUnavailableError,
};
