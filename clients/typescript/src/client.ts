/**
 * The client of `graphmem serve`: the verbs of the Python `GraphMemClient` (graphmem/client.py)
 * over HTTP and JSON, with `fetch` only.
 *
 * Verbs keep the Python names in camelCase (`observe_many` is `observeMany`); what they send and
 * answer are the types generated from the server's /openapi.json (./schema.ts), whose fields keep
 * the API's snake_case names. Answers are typed, not validated: the schema test keeps the types
 * and the server in step. A recall answers the `Recall` itself: the subgraph, its text for a
 * prompt as `rendered` (Python's `Recall.render()`), how likely it is to bear on the query
 * (`confidence`, 0-1), and `nothing_relevant` when that fell below `min_confidence`: then it holds
 * no memory and `rendered` says so.
 *
 * Errors are the server's refusals as graphmem's error classes (./errors.ts). A key unknown to
 * `revokeKey` (404) gives undefined, as in Python. A call that changes nothing more when repeated
 * (a read, a peek, an observe whose messages all have ids, the sleep job, forgetting) is tried
 * again after a connection error or a 503, and any call after a 429, up to `retries` times,
 * waiting what Retry-After says or else `backoff` seconds, doubled each time.
 *
 * An export answers the lines of the file `graphmem export` writes: a header naming the format,
 * its version and the owner, then the records. `export` checks the header and gives the records,
 * which `load` takes back.
 */
import { ERRORS, type GraphMemError, StoreError, StoreUnavailableError } from './errors.js';
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

/** An observed message: its stored turn and the memories derived from it. */
export type Observation = Schemas['Observation'];
/** One message of `observeMany`. */
export type ObservedMessage = Schemas['ObservedMessage'];
/** A turn of the recent conversation, when a recall is asked with it. */
export type QueryTurn = Schemas['QueryTurn'];
/** A recall's answer: the subgraph, its text for a prompt (`rendered`), its confidence. */
export type Recall = Schemas['Recall'];
/** What one owner's sleep job did. */
export type SleepReport = Schemas['SleepReport'];
/** What forgetting a message deleted and rewrote; `found: false` for an unknown message. */
export type Forgotten = Schemas['Forgotten'];
/** An owner's nodes and edges counted. */
export type GraphCounts = Schemas['GraphCounts'];
/** What needs attention in an owner's memory. */
export type Health = Schemas['Health'];
/** Who the user is now, as the memory believes. */
export type Profile = Schemas['Profile'];
/** A raw turn as stored; its `id` is the message id that `forgetMessage` takes. */
export type Turn = Schemas['Turn'];
/** A key, without its secret. */
export type KeyInfo = Schemas['KeyInfo'];
/** A new key and its secret, shown this once. */
export type NewKey = Schemas['NewKey'];
/** What a new key may touch. */
export type KeyRequest = Schemas['KeyRequest'];
/** One record of an exported graph, as `load` takes it back. */
export type GraphRecord = Schemas['Records']['records'][number];

/** The rest of an observe: id, time, speaker, session, and whether a forgotten one may return. */
export type ObserveOptions = Omit<Schemas['ObserveOne'], 'text'>;
/** The rest of an observeMany: whether forgotten messages may return. */
export type ObserveManyOptions = Omit<Schemas['ObserveMany'], 'messages'>;
/** How to recall: how many, how deep, which filters, whether to peek. */
export type RecallOptions = Omit<Schemas['RecallQuestion'], 'query'>;
/** When to do something (default: now). */
export type When = Schemas['When'];
/** How many pending turns to derive at most. */
export type Limit = Schemas['Limit'];
/** Which turns to read: a session's, the last `last` of them if given. */
export type TurnsQuery = operations['turns_v1_owners__owner__turns_get']['parameters']['query'];
/** Which page of the timeline to read: conditions, the page before's `next`, how many. */
export type TimelineQuery = NonNullable<
  operations['timeline_v1_owners__owner__timeline_get']['parameters']['query']
>;
/** Which node's neighbourhood to read: its id, and its label (Memory by default). */
export type NeighbourhoodQuery =
  operations['neighbourhood_v1_owners__owner__neighbourhood_get']['parameters']['query'];
/** A page of an owner's memories, newest first. */
export type TimelinePage = Schemas['TimelinePage'];
/** A node, every node one edge away, and those edges. */
export type NodeNeighbourhood = Schemas['NodeNeighbourhood'];
/** An event of the owner, its size, and whether it is still open. */
export type EventEntry = Schemas['EventEntry'];
/** An impression of the owner, its belief now, what it rests on. */
export type ImpressionEntry = Schemas['ImpressionEntry'];
/** A request the server answered, as its request log keeps it. */
export type ServedRequest = Schemas['ServedRequest'];

/** How a client reaches the server and how patiently. */
export interface ClientOptions {
  /** The key's secret, sent as `Authorization: Bearer <key>`; none for a server without keys. */
  key?: string | undefined;
  /** Seconds one attempt may take (default 60). */
  timeout?: number | undefined;
  /** How many times a call is tried again (default 3). */
  retries?: number | undefined;
  /** Seconds before the first retry when Retry-After says none, doubled each time (default 0.5). */
  backoff?: number | undefined;
}

/** A value of a query parameter; a list of them is sent as the parameter repeated. */
type Scalar = string | number | boolean;

/** One request of a verb, whether repeating it changes nothing more, and how to read its answer. */
interface Call<T> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, Scalar | Scalar[] | null | undefined> | undefined;
  body?: unknown;
  idempotent: boolean;
  read: (text: string) => T;
  /** What a 404 means, for a verb whose answer says when something is not there. */
  missing?: () => T;
}

/** What the server answered to one attempt. */
interface Answered {
  status: number;
  headers: Headers;
  text: string;
}

/** An answer holding one JSON value (typed by the call, not checked). */
const json = <T>(text: string): T => JSON.parse(text) as T;

/** The header of an export file, as graphmem/file_formats.py writes it. */
interface ExportHeader {
  format: 'graphmem-export';
  version: number;
  owner: string;
}

/** The format an export's header names, and the versions this client reads. */
const EXPORT_FORMAT = 'graphmem-export';
const EXPORT_VERSIONS = [1, 2];

/** Whether a parsed line is the header of an export file of a version this client reads. */
const isExportHeader = (value: unknown): value is ExportHeader => {
  const header = value as Partial<ExportHeader> | null;
  return (
    typeof header === 'object' &&
    header !== null &&
    header.format === EXPORT_FORMAT &&
    EXPORT_VERSIONS.includes(header.version ?? 0) &&
    typeof header.owner === 'string'
  );
};

/** The records of an export file's lines (typed, not checked), after its header. */
const exported = (text: string): GraphRecord[] => {
  const [header, ...records] = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
  if (!isExportHeader(header)) {
    const versions = EXPORT_VERSIONS.join(' or ');
    throw new StoreError(
      `the export does not start with a ${EXPORT_FORMAT} header of version ${versions}`,
    );
  }
  return records as GraphRecord[];
};

/** The path of a verb on an owner's memory (the owner escaped as one path segment). */
const ownerPath = (owner: string, verb: string): string =>
  `/v1/owners/${encodeURIComponent(owner)}/${verb}`;

/** Wait this many seconds. */
const pause = (seconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** The memory behind `graphmem serve`, with the verbs of GraphMem (see the module comment). */
export class GraphMemClient {
  private readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly timeout: number;
  private readonly retries: number;
  private readonly backoff: number;

  /** A client of the server at `url` (e.g. http://127.0.0.1:8420). */
  constructor(url: string, options: ClientOptions = {}) {
    this.base = url.replace(/\/+$/, '');
    // JSON declared on every request, a GET's too: a server without keys asks it of a caller
    // without one (no web page can send it without the server's consent).
    this.headers = {
      'content-type': 'application/json',
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
    };
    this.timeout = options.timeout ?? 60;
    this.retries = options.retries ?? 3;
    this.backoff = options.backoff ?? 0.5;
  }

  /** The process is up (GET /healthz). */
  alive(): Promise<Record<string, string>> {
    return this.get('/healthz');
  }

  /** The store answers (GET /readyz); StoreUnavailableError otherwise. */
  ready(): Promise<Record<string, string>> {
    return this.get('/readyz');
  }

  /** GraphMem.owners: the owners with a memory that this key may touch. */
  owners(): Promise<string[]> {
    return this.get('/v1/owners');
  }

  /** GraphMem.observe: store a message and derive its memory. */
  observe(owner: string, text: string, options: ObserveOptions = {}): Promise<Observation> {
    return this.post(owner, 'observe', { ...options, text }, options.message_id != null);
  }

  /** GraphMem.observe_many: store messages (oldest first) in one transaction, then derive them. */
  observeMany(
    owner: string,
    messages: ObservedMessage[],
    options: ObserveManyOptions = {},
  ): Promise<Observation[]> {
    const idempotent = messages.every((message) => message.message_id != null);
    return this.post(owner, 'observe_many', { ...options, messages }, idempotent);
  }

  /** GraphMem.recall: the related-context subgraph for a question or a conversation's turns. */
  recall(owner: string, query: string | QueryTurn[], options: RecallOptions = {}): Promise<Recall> {
    return this.post(owner, 'recall', { ...options, query }, options.peek === true);
  }

  /** GraphMem.consolidate: the sleep job for this owner (run it nightly). */
  consolidate(owner: string, options: When = {}): Promise<SleepReport> {
    return this.post(owner, 'consolidate', options, true);
  }

  /** GraphMem.complete_pending: derive pending turns' memories; how many. */
  completePending(owner: string, options: Limit = {}): Promise<number> {
    return this.post(owner, 'complete_pending', options, true);
  }

  /** GraphMem.learn: teach that a cause leads to an effect, with how surely it does (0-1). */
  async learn(
    owner: string,
    cause: string,
    effect: string,
    sufficiency: number,
    options: When = {},
  ): Promise<void> {
    await this.post(owner, 'learn', { ...options, cause, effect, sufficiency }, true);
  }

  /** GraphMem.retier: sink faded memories to their tiers; how many moved. */
  retier(owner: string, options: When = {}): Promise<number> {
    return this.post(owner, 'retier', options, true);
  }

  /** GraphMem.forget_message: forget a message and what derives only from it. */
  forgetMessage(owner: string, messageId: string): Promise<Forgotten> {
    return this.post(owner, 'forget_message', { message_id: messageId }, true);
  }

  /** GraphMem.forget: delete everything of this owner. */
  forget(owner: string): Promise<GraphCounts> {
    return this.post(owner, 'forget', {}, true);
  }

  /** GraphMem.turns: the turns of one session in the order received (the last `last` if given). */
  turns(owner: string, query: TurnsQuery = {}): Promise<Turn[]> {
    return this.get(ownerPath(owner, 'turns'), query);
  }

  /** GraphMem.timeline: a page of the owner's memories, newest first; its `next` reads on. */
  timeline(owner: string, query: TimelineQuery = {}): Promise<TimelinePage> {
    return this.get(ownerPath(owner, 'timeline'), query);
  }

  /** GraphMem.neighbourhood: a node (a memory by default), every node one edge away, the edges. */
  neighbourhood(owner: string, query: NeighbourhoodQuery): Promise<NodeNeighbourhood> {
    return this.get(ownerPath(owner, 'neighbourhood'), query);
  }

  /** GraphMem.events: every event of the owner, open or closed, its latest update first. */
  events(owner: string, query: When = {}): Promise<EventEntry[]> {
    return this.get(ownerPath(owner, 'events'), query);
  }

  /** GraphMem.impressions: every impression of the owner with its belief now, strongest first. */
  impressions(owner: string, query: When = {}): Promise<ImpressionEntry[]> {
    return this.get(ownerPath(owner, 'impressions'), query);
  }

  /** GraphMem.health: what needs attention in this owner's memory. */
  health(owner: string, query: When = {}): Promise<Health> {
    return this.get(ownerPath(owner, 'health'), query);
  }

  /** GraphMem.profile: who the user is now, as the memory believes (no model call). */
  profile(owner: string, query: When = {}): Promise<Profile> {
    return this.get(ownerPath(owner, 'profile'), query);
  }

  /** GraphMem.statistics: the owner's nodes and edges counted. */
  statistics(owner: string): Promise<GraphCounts> {
    return this.get(ownerPath(owner, 'statistics'));
  }

  /** GraphMem.export: the owner's graph as records (the export file's, after its header). */
  export(owner: string): Promise<GraphRecord[]> {
    const path = ownerPath(owner, 'export');
    return this.send<GraphRecord[]>({ method: 'GET', path, idempotent: true, read: exported });
  }

  /** GraphMem.load: add exported records to the owner's memory. */
  load(owner: string, records: GraphRecord[]): Promise<GraphCounts> {
    return this.post(owner, 'load', { records }, true);
  }

  /** GraphMem.create_key (an admin key's): a new key, its secret in this answer only. */
  createKey(request: KeyRequest = {}): Promise<NewKey> {
    return this.send<NewKey>({
      method: 'POST',
      path: '/v1/keys',
      body: request,
      idempotent: false,
      read: json,
    });
  }

  /** GraphMem.list_keys (an admin key's): every key, without its secret. */
  listKeys(): Promise<KeyInfo[]> {
    return this.get('/v1/keys');
  }

  /** The server's request log (an admin key's): the latest requests, newest first. */
  requestLog(query: Limit = {}): Promise<ServedRequest[]> {
    return this.get('/v1/requests', query);
  }

  /** GraphMem.revoke_key (an admin key's): the key revoked, undefined if there is no such key. */
  revokeKey(keyId: string): Promise<KeyInfo | undefined> {
    return this.send<KeyInfo | undefined>({
      method: 'POST',
      path: `/v1/keys/${encodeURIComponent(keyId)}/revoke`,
      body: {},
      idempotent: true,
      read: json,
      missing: () => undefined,
    });
  }

  /** A verb of an owner's memory with a JSON body and a JSON answer. */
  private post<T>(owner: string, verb: string, body: object, idempotent: boolean): Promise<T> {
    const path = ownerPath(owner, verb);
    return this.send<T>({ method: 'POST', path, body, idempotent, read: json });
  }

  /** A read with a JSON answer. */
  private get<T>(path: string, query?: Call<T>['query']): Promise<T> {
    return this.send<T>({ method: 'GET', path, query, idempotent: true, read: json });
  }

  /** Send a call, trying it again as the module comment says; its result. */
  private async send<T>(call: Call<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const answer = await this.attempt(call).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      );
      const wait = this.wait(call, attempt, answer);
      if (wait === undefined) {
        return settle(call, answer);
      }
      await pause(wait);
    }
  }

  /** One attempt: the answer read whole, or the error of a server that could not be reached. */
  private async attempt(call: Call<unknown>): Promise<Answered> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item != null) search.append(name, String(item));
      }
    }
    const query = String(search);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const response = await fetch(`${this.base}${call.path}${query ? `?${query}` : ''}`, {
      method: call.method,
      headers: this.headers,
      body: body ?? null,
      signal: AbortSignal.timeout(this.timeout * 1000),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** Seconds to wait before trying the call again, or undefined to give up and answer. */
  private wait(call: Call<unknown>, attempt: number, answer: Answered | Error): number | undefined {
    if (attempt >= this.retries) return undefined;
    const doubled = this.backoff * 2 ** attempt;
    if (answer instanceof Error) return call.idempotent ? doubled : undefined;
    if (!(answer.status === 429 || (answer.status === 503 && call.idempotent))) return undefined;
    const given = answer.headers.get('retry-after') ?? '';
    return /^\d+$/.test(given) ? Number(given) : doubled;
  }
}

/** The call's result, or the error the server answered with (or the one of no answer). */
function settle<T>(call: Call<T>, answer: Answered | Error): T {
  if (answer instanceof Error) {
    const cause = answer.cause instanceof Error ? `: ${answer.cause.message}` : '';
    const message = `graphmem serve could not be reached: ${answer.message}${cause}`;
    throw new StoreUnavailableError(message);
  }
  if (answer.status >= 200 && answer.status < 300) return call.read(answer.text);
  if (answer.status === 404 && call.missing) return call.missing();
  throw refused(answer);
}

/** The error of a refusal: its class by status, its message as the server wrote it. */
function refused(answer: Answered): GraphMemError {
  const kind = ERRORS[answer.status] ?? StoreError;
  const error = errorBody(answer.text);
  if (error === undefined) {
    const text = answer.text.slice(0, 200);
    return new kind(`HTTP ${answer.status}: ${text}`, { status: answer.status });
  }
  return new kind(`${error.message} (request ${error.request_id})`, {
    status: answer.status,
    code: error.code,
    ...(error.field == null ? {} : { field: error.field }),
    requestId: error.request_id,
  });
}

/** The `error` of an error answer, if the text is one. */
function errorBody(text: string): Schemas['ErrorBody'] | undefined {
  try {
    const error: unknown = (JSON.parse(text) as { error?: unknown }).error;
    const message = (error as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? (error as Schemas['ErrorBody']) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each operation of /openapi.json (by operationId) and the client method that calls it: the
 * compiler checks it names every operation of ./schema.ts, the schema test that it names every
 * operation of the live server.
 */
export const OPERATIONS = {
  alive_healthz_get: 'alive',
  ready_readyz_get: 'ready',
  list_owners_v1_owners_get: 'owners',
  observe_v1_owners__owner__observe_post: 'observe',
  observe_many_v1_owners__owner__observe_many_post: 'observeMany',
  recall_v1_owners__owner__recall_post: 'recall',
  consolidate_v1_owners__owner__consolidate_post: 'consolidate',
  complete_pending_v1_owners__owner__complete_pending_post: 'completePending',
  learn_v1_owners__owner__learn_post: 'learn',
  retier_v1_owners__owner__retier_post: 'retier',
  forget_message_v1_owners__owner__forget_message_post: 'forgetMessage',
  forget_v1_owners__owner__forget_post: 'forget',
  turns_v1_owners__owner__turns_get: 'turns',
  timeline_v1_owners__owner__timeline_get: 'timeline',
  neighbourhood_v1_owners__owner__neighbourhood_get: 'neighbourhood',
  events_v1_owners__owner__events_get: 'events',
  impressions_v1_owners__owner__impressions_get: 'impressions',
  health_v1_owners__owner__health_get: 'health',
  profile_v1_owners__owner__profile_get: 'profile',
  statistics_v1_owners__owner__statistics_get: 'statistics',
  export_v1_owners__owner__export_get: 'export',
  load_v1_owners__owner__load_post: 'load',
  create_key_v1_keys_post: 'createKey',
  list_keys_v1_keys_get: 'listKeys',
  revoke_key_v1_keys__key_id__revoke_post: 'revokeKey',
  request_log_v1_requests_get: 'requestLog',
} as const satisfies Record<keyof operations, keyof GraphMemClient>;
