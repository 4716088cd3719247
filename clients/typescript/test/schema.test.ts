/**
 * The client and the live server's /openapi.json agree: the checked-in types are those the schema
 * makes, and every operation has its client method. With GRAPHMEM_WRITE_SCHEMA set (npm run
 * schema) the first test writes src/schema.ts instead of failing.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { GraphMemClient, OPERATIONS } from '@graphmem/client';
import { type Graphmem, startGraphmem } from './graphmem.js';

const SCHEMA_FILE = new URL('../src/schema.ts', import.meta.url);
const BANNER = `/**
 * The types of graphmem serve's /openapi.json, made by openapi-typescript with
 * defaultNonNullable false (a field with a default is optional, as a request may leave it out).
 * Do not edit: \`npm run schema\` writes it again from a live server.
 */

`;

let graphmem: Graphmem;
let schema: OpenAPI3;

before(async () => {
  graphmem = await startGraphmem();
  schema = (await (await fetch(`${graphmem.url}/openapi.json`)).json()) as OpenAPI3;
});

after(async () => {
  await graphmem.stop();
});

test('src/schema.ts holds the types of the live /openapi.json', async () => {
  const made =
    BANNER + astToString(await openapiTS(structuredClone(schema), { defaultNonNullable: false }));
  if (process.env['GRAPHMEM_WRITE_SCHEMA']) {
    await writeFile(SCHEMA_FILE, made);
  }
  const checkedIn = await readFile(SCHEMA_FILE, 'utf8');
  assert.ok(checkedIn === made, 'the server changed its schema: npm run schema, then the client');
});

test('every operation of the live /openapi.json has its client method', () => {
  const operations = Object.values(schema.paths ?? {}).flatMap((path) =>
    Object.values(path).flatMap((operation: { operationId?: string }) =>
      operation.operationId === undefined ? [] : [operation.operationId],
    ),
  );
  assert.deepEqual(Object.keys(OPERATIONS).sort(), operations.sort());
  for (const [operation, method] of Object.entries(OPERATIONS)) {
    assert.equal(typeof GraphMemClient.prototype[method], 'function', operation);
  }
});
