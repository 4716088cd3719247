/** Retries and refusals, against a local server that answers as each test scripts it. */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import {
  AccessError,
  ConflictError,
  GraphMemClient,
  GraphMemError,
  InvalidInputError,
  ModelError,
  RequestRefusedError,
  StoreError,
  StoreUnavailableError,
} from '@graphmem/client';
import { listen, type Local } from './graphmem.js';

/** One scripted answer: a status with its headers and JSON body, or a connection cut. */
type Scripted = { status: number; headers?: Record<string, string>; body?: unknown } | 'cut';

/** What the server was asked: when (ms), and the Authorization header. */
interface Asked {
  at: number;
  authorization: string | undefined;
}

/** A server answering each request with the next scripted answer, and what it was asked. */
async function scripted(...answers: Scripted[]): Promise<Local & { asked: Asked[] }> {
  const asked: Asked[] = [];
  const server = await listen((request: IncomingMessage, response: ServerResponse) => {
    asked.push({ at: performance.now(), authorization: request.headers.authorization });
    const answer = answers.shift() ?? { status: 500, body: 'unscripted request' };
    if (answer === 'cut') {
      request.socket.destroy();
      return;
    }
    const headers = { 'content-type': 'application/json', ...answer.headers };
    response.writeHead(answer.status, headers).end(JSON.stringify(answer.body ?? null));
  });
  return { ...server, asked };
}

/** A refusal's body as graphmem serve writes it. */
function refusal(status: number, message: string): Scripted {
  return { status, body: { error: { code: 'some_code', message, request_id: 'r1' } } };
}

/** The milliseconds between one request and the next. */
function waits(asked: Asked[]): number[] {
  return asked.slice(1).map((request, index) => request.at - (asked[index]?.at ?? 0));
}

const COUNTS = { nodes: { Turn: 1 }, links: {}, tiers: {}, beliefs: {} };
const OBSERVED = { turn: { id: 't' }, memories: [], pending: false };

test('a read is tried again after a 503, when Retry-After says', { timeout: 10_000 }, async () => {
  const server = await scripted(
    { status: 503, headers: { 'retry-after': '1' } },
    { status: 200, body: COUNTS },
  );
  // A backoff longer than the test's timeout: only the server's Retry-After lets it pass.
  const client = new GraphMemClient(server.url, { key: 'gmk_secret', backoff: 60 });
  assert.deepEqual(await client.statistics('ann'), COUNTS);
  await server.close();
  const [wait = 0] = waits(server.asked);
  assert.equal(server.asked.length, 2);
  assert.ok(wait >= 950, `retried after ${wait} ms`);
  assert.deepEqual(
    server.asked.map((request) => request.authorization),
    ['Bearer gmk_secret', 'Bearer gmk_secret'],
  );
});

test('any call is tried again after a 429; one not idempotent is not after a 503', async () => {
  const server = await scripted(
    { status: 429, headers: { 'retry-after': '0' } },
    { status: 200, body: OBSERVED },
    refusal(503, 'the store cannot be reached'),
  );
  const client = new GraphMemClient(server.url, { backoff: 60 });
  assert.deepEqual(await client.observe('ann', 'Hello.'), OBSERVED); // no id: not idempotent
  await assert.rejects(client.observe('ann', 'Hello again.'), StoreUnavailableError);
  await server.close();
  assert.equal(server.asked.length, 3);
});

test('with no Retry-After the waits start at backoff and double', async () => {
  const server = await scripted({ status: 503 }, { status: 503 }, { status: 200, body: COUNTS });
  const client = new GraphMemClient(server.url, { backoff: 0.1 });
  await client.statistics('ann');
  await server.close();
  const [first = 0, second = 0] = waits(server.asked);
  assert.ok(first >= 95, `first wait ${first} ms`);
  assert.ok(second >= 195, `second wait ${second} ms`);
});

test('after its retries a call gives the last refusal as its error', async () => {
  const failing = refusal(503, 'the store cannot be reached');
  const server = await scripted(failing, failing, failing);
  const client = new GraphMemClient(server.url, { retries: 2, backoff: 0.01 });
  await assert.rejects(client.forget('ann'), {
    name: 'StoreUnavailableError',
    message: 'the store cannot be reached (request r1)',
  });
  await server.close();
  assert.equal(server.asked.length, 3);
});

test('a lost connection is tried again for an idempotent call only', async () => {
  const server = await scripted('cut', { status: 200, body: OBSERVED }, 'cut');
  const client = new GraphMemClient(server.url, { backoff: 0.01 });
  assert.deepEqual(await client.observe('ann', 'Hi.', { message_id: 'm1' }), OBSERVED);
  await assert.rejects(client.observe('ann', 'Hi.'), (error) => {
    assert.ok(error instanceof StoreUnavailableError);
    assert.match(error.message, /^graphmem serve could not be reached: /);
    assert.equal(error.refusal, undefined);
    return true;
  });
  await server.close();
  assert.equal(server.asked.length, 3);
});

test("each refusal is graphmem's error for its status", async () => {
  const expected: [number, typeof GraphMemError][] = [
    [400, InvalidInputError],
    [401, AccessError],
    [403, AccessError],
    [404, StoreError],
    [409, ConflictError],
    [413, RequestRefusedError],
    [422, InvalidInputError],
    [429, RequestRefusedError],
    [500, StoreError],
    [502, ModelError],
    [503, StoreUnavailableError],
  ];
  const server = await scripted(
    ...expected.map(([status]) => refusal(status, `refused with ${status}`)),
    { status: 500, body: 'not the error format' },
  );
  const client = new GraphMemClient(server.url, { retries: 0 });
  for (const [status, kind] of expected) {
    const error = await client.health('ann').catch((caught: unknown) => caught);
    assert.ok(error instanceof kind, `${status}: ${String(error)}`);
    assert.equal(error.name, kind.name);
    assert.equal(error.message, `refused with ${status} (request r1)`);
    assert.deepEqual(error.refusal, { status, code: 'some_code', requestId: 'r1' });
  }
  await assert.rejects(client.health('ann'), {
    name: 'StoreError',
    message: 'HTTP 500: "not the error format"',
  });
  await server.close();
});

test('a server that cannot be reached is StoreUnavailableError', async () => {
  const server = await scripted();
  await server.close(); // nothing listens on its port now
  const client = new GraphMemClient(server.url, { retries: 1, backoff: 0.01 });
  await assert.rejects(client.owners(), StoreUnavailableError);
});
