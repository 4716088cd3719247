/** The client against a live `graphmem serve`: every verb, and the server's refusals as errors. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccessError, ConflictError, GraphMemClient, InvalidInputError } from '@graphmem/client';
import { type Graphmem, startGraphmem } from './graphmem.js';

let graphmem: Graphmem;
let admin: GraphMemClient;
/** A client whose key may touch the owners whose names start with ann- (one a test). */
let ann: GraphMemClient;
let annKeyId: string;

before(async () => {
  graphmem = await startGraphmem();
  admin = new GraphMemClient(graphmem.url, { key: graphmem.admin });
  const made = await admin.createKey({ owner_prefix: 'ann-' });
  annKeyId = made.key.id;
  ann = new GraphMemClient(graphmem.url, { key: made.secret });
});

after(async () => {
  assert.equal(await graphmem.stop(), 0); // stopped well: the memory closed
});

test('a message observed is recalled, listed as a turn, and gone once forgotten', async () => {
  const text = "I'm allergic to peanuts.";
  const seen = await ann.observe('ann-forget', text, { message_id: 'm1', session: 's1' });
  assert.equal(seen.turn.id, 'm1');
  assert.equal(seen.turn.session, 's1');
  assert.equal(seen.already_stored, false);
  const again = await ann.observe('ann-forget', text, { message_id: 'm1', session: 's1' });
  assert.deepEqual([again.already_stored, again.memories], [true, []]); // stored once

  const asked = { peek: true, min_confidence: 0 }; // what was found, however confident
  const found = await ann.recall('ann-forget', 'What am I allergic to?', asked);
  assert.equal(found.memories[0]?.memory.text, text);
  assert.match(found.rendered, /^\[1\] \d{4}-\d\d-\d\d \d\d:\d\d I'm allergic to peanuts\.$/m);
  assert.ok(found.confidence !== undefined && found.confidence >= 0 && found.confidence <= 1);
  assert.equal(typeof found.nothing_relevant, 'boolean');

  const turns = await ann.turns('ann-forget', { session: 's1' });
  assert.deepEqual(
    turns.map((turn) => [turn.id, turn.text, turn.speaker]),
    [['m1', text, 'user']],
  );

  const forgotten = await ann.forgetMessage('ann-forget', 'm1');
  assert.equal(forgotten.found, true);
  assert.equal(forgotten.deleted['Turn'], 1);
  assert.deepEqual(await ann.turns('ann-forget', { session: 's1' }), []);
  assert.equal((await ann.forgetMessage('ann-forget', 'm1')).found, false); // as in Python
  const after = await ann.recall('ann-forget', 'What am I allergic to?', asked);
  assert.doesNotMatch(after.rendered, /peanuts/);
});

test('turns come in the order observed, the last ones when asked', async () => {
  const said = ['Hello.', 'I moved to Lyon.', 'I play the cello.'];
  const observed = await ann.observeMany(
    'ann-order',
    said.map((text, index) => ({ text, message_id: `o${index}`, session: 'order' })),
  );
  assert.deepEqual(
    observed.map((item) => item.turn.id),
    ['o0', 'o1', 'o2'],
  );
  const last = await ann.turns('ann-order', { session: 'order', last: 2 });
  assert.deepEqual(
    last.map((turn) => turn.text),
    said.slice(1),
  );
  assert.deepEqual(
    last.map((turn) => turn.position),
    [1, 2],
  );
});

test('the reads and the sleep job answer for the owner', async () => {
  await ann.observe('ann-reads', 'I grow tomatoes.', { message_id: 'g1', session: 'garden' });
  assert.ok((await ann.owners()).includes('ann-reads'));
  assert.equal((await ann.statistics('ann-reads')).nodes['Turn'], 1);
  assert.equal((await ann.consolidate('ann-reads')).owner, 'ann-reads');
  assert.equal((await ann.health('ann-reads')).owner, 'ann-reads');
  assert.equal((await ann.profile('ann-reads')).owner, 'ann-reads');
  assert.equal(await ann.completePending('ann-reads', { limit: 10 }), 0);
  await ann.learn('ann-reads', 'sore throat', 'a cold', 0.7);
  assert.ok((await ann.retier('ann-reads')) >= 0);
  assert.deepEqual(await ann.alive(), { status: 'ok' });
  assert.deepEqual(await ann.ready(), { status: 'ready' });
});

test('the timeline pages by its cursor and a neighbourhood follows an edge', async () => {
  const said = ['I grow basil.', 'I moved to Lyon.', 'The basil needs sun.'];
  await ann.observeMany(
    'ann-browse',
    said.map((text, index) => ({ text, message_id: `b${index}`, session: 'browse' })),
  );
  const kinds: ('observation' | 'fact')[] = ['observation'];
  const first = await ann.timeline('ann-browse', { kinds, limit: 2 });
  assert.equal(first.entries.length, 2);
  assert.ok(first.next != null);
  const rest = await ann.timeline('ann-browse', { kinds, limit: 2, before: first.next });
  assert.equal(rest.next, null);
  const shown = [...first.entries, ...rest.entries].map((entry) => entry.memory.text);
  assert.deepEqual([...shown].sort(), [...said].sort());
  const basil = await ann.timeline('ann-browse', { kinds, contains: 'BASIL', tiers: [0, 1, 2, 3] });
  assert.deepEqual(basil.entries.map((entry) => entry.memory.text).sort(), [said[0], said[2]]);
  const around = await ann.neighbourhood('ann-browse', { node_id: 'b1', label: 'Turn' });
  assert.ok(around.links.some((link) => link.type === 'FROM' && link.target === 'b1'));
  assert.ok(around.memories.some((memory) => memory.text === said[1]));
  assert.deepEqual(await ann.events('ann-browse'), []); // no sleep yet: no event
  assert.ok(Array.isArray(await ann.impressions('ann-browse')));
  const log = await admin.requestLog({ limit: 3 });
  assert.equal(log[0]?.path, '/v1/owners/ann-browse/impressions'); // the latest answered
});

test('an exported graph forgotten and loaded comes back whole', async () => {
  await ann.observe('ann-export', 'My sister lives in Oslo.', { message_id: 'x1' });
  const records = await ann.export('ann-export');
  const nodes = records.map((record) => record['node'] as { id: string } | undefined);
  assert.ok(nodes.some((node) => node?.id === 'x1'));
  const emptied = await ann.forget('ann-export');
  assert.ok(Object.values(emptied.nodes).every((count) => count === 0));
  await ann.load('ann-export', records);
  assert.deepEqual(await ann.export('ann-export'), records);
});

test("the server's refusals are graphmem's errors, with its message", async () => {
  const badOwner = await admin.statistics(' ').catch((error: unknown) => error);
  assert.ok(badOwner instanceof InvalidInputError);
  assert.match(badOwner.message, /^owner ' ' is not 1-128 characters .* \(request \w+\)$/);
  assert.equal(badOwner.refusal?.status, 400);
  assert.equal(badOwner.refusal?.code, 'invalid_input');

  const unfit = await ann.recall('ann-errors', 'milk', { k: 0 }).catch((error: unknown) => error);
  assert.ok(unfit instanceof InvalidInputError);
  assert.equal(unfit.refusal?.status, 422);
  assert.equal(unfit.refusal?.field, 'k');

  await ann.observe('ann-errors', 'I like tea.', { message_id: 't1' });
  const changed = ann.observe('ann-errors', 'I like coffee.', { message_id: 't1' });
  await assert.rejects(changed, ConflictError); // a known id with another text
  await assert.rejects(ann.statistics('ben'), (error) => {
    assert.ok(error instanceof AccessError);
    assert.equal(error.refusal?.status, 403);
    assert.match(error.message, /this key may not touch this owner/);
    return true;
  });
  const keyless = new GraphMemClient(graphmem.url);
  await assert.rejects(keyless.owners(), (error) => {
    assert.ok(error instanceof AccessError);
    assert.equal(error.refusal?.status, 401);
    return true;
  });
});

test('an admin key lists and revokes keys; a revoked key is refused', async () => {
  const keys = await admin.listKeys();
  assert.ok(keys.some((key) => key.id === annKeyId && key.owner_prefix === 'ann-'));
  await assert.rejects(ann.listKeys(), AccessError); // only an admin key manages keys
  const made = await admin.createKey({ owners: ['carl'] });
  const carl = new GraphMemClient(graphmem.url, { key: made.secret });
  assert.deepEqual(await carl.owners(), []);
  const revoked = await admin.revokeKey(made.key.id);
  assert.ok(revoked?.revoked_at);
  assert.equal(await admin.revokeKey('no-such-key'), undefined);
  await assert.rejects(carl.owners(), AccessError);
});
