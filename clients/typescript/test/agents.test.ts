/**
 * GraphMemSession in the real run loop of @openai/agents, with a scripted chat completions
 * endpoint as the model and a live `graphmem serve` as the memory.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Agent,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  tool,
  type AgentInputItem,
} from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { GraphMemClient } from '@graphmem/client';
import { GraphMemSession } from '@graphmem/client/agents';
import { type Graphmem, startGraphmem } from './graphmem.js';
import { type ScriptedModel, scriptedModel, transcript } from './model.js';

let graphmem: Graphmem;
let model: ScriptedModel;
let memory: GraphMemClient;

before(async () => {
  setTracingDisabled(true);
  [graphmem, model] = await Promise.all([startGraphmem(), scriptedModel()]);
  memory = new GraphMemClient(graphmem.url, { key: graphmem.admin });
});

after(async () => {
  await Promise.all([graphmem.stop(), model.close()]);
});

test('the session keeps what was said and gives it back as messages', async () => {
  const session = new GraphMemSession(memory, { owner: 'bea', sessionId: 'direct' });
  const items: AgentInputItem[] = [
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'I have two cats.' },
        { type: 'input_image', image: 'https://example.com/cats.png' },
        { type: 'input_text', text: 'Both are black.' },
      ],
    },
    { type: 'function_call', callId: 'c1', name: 'recall_memory', arguments: '{"query":"cats"}' },
    {
      type: 'function_call_result',
      callId: 'c1',
      name: 'recall_memory',
      status: 'completed',
      output: 'nothing yet',
    },
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] },
  ];
  await session.addItems(items);

  const turns = await memory.turns('bea', { session: 'direct' });
  assert.deepEqual(
    turns.map((turn) => [turn.speaker, turn.text]),
    [
      ['user', 'I have two cats.\nBoth are black.'],
      ['assistant', 'Noted.'],
    ],
  );
  assert.notEqual(turns[0]?.id, turns[1]?.id);
  const question = { role: 'user', content: 'I have two cats.\nBoth are black.' };
  const answer = {
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Noted.' }],
  };
  assert.equal(await session.getSessionId(), 'direct');
  assert.deepEqual(await session.getItems(), [question, answer]);
  assert.deepEqual(await session.getItems(1), [answer]);
  assert.deepEqual(await session.popItem(), answer);
  assert.deepEqual(await session.getItems(), [question]);
  await session.clearSession();
  assert.deepEqual(await session.getItems(), []);
  assert.equal(await session.popItem(), undefined);
  assert.deepEqual(await memory.turns('bea', { session: 'direct' }), []);
});

test('an agent recalls in a new session what was said in another, until forgotten', async (t) => {
  const owner = 'ann';
  const recallMemory = tool({
    name: 'recall_memory',
    description: 'Recall what the user said in earlier conversations.',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) =>
      (await memory.recall(owner, query, { min_confidence: 0 })).rendered,
  });
  const client = new OpenAI({ apiKey: 'scripted', baseURL: `${model.url}/v1`, maxRetries: 0 });
  const agent = new Agent({
    name: 'Assistant',
    instructions: 'Answer in one sentence; recall what the user told you when it may matter.',
    model: new OpenAIChatCompletionsModel(client, 'scripted'),
    tools: [recallMemory],
  });
  const first = new GraphMemSession(memory, { owner, sessionId: 's1' });
  const second = new GraphMemSession(memory, { owner, sessionId: 's2' });

  // 1. The user says something worth remembering.
  model.script({ text: 'Noted: no peanuts for you.' });
  await run(agent, "I'm allergic to peanuts.", { session: first });
  assert.deepEqual(
    (await memory.turns(owner, { session: 's1' })).map((turn) => [turn.speaker, turn.text]),
    [
      ['user', "I'm allergic to peanuts."],
      ['assistant', 'Noted: no peanuts for you.'],
    ],
  );

  // 2. In a new session the model calls the recall tool, and the memory reaches its next request.
  model.requests.length = 0;
  model.script({ recall: 'What is the user allergic to?' }, { text: 'Avoid peanuts.' });
  const answered = await run(agent, 'What should I avoid eating?', { session: second });
  assert.equal(answered.finalOutput, 'Avoid peanuts.');
  const [asking, told] = model.requests;
  assert.deepEqual(transcript(asking ?? []).slice(1), ['user: What should I avoid eating?']);
  const recalled = (told ?? []).find((message) => message.role === 'tool');
  assert.match(String(recalled?.content), /I'm allergic to peanuts\./);
  t.diagnostic('the second request of the second run:');
  transcript(told ?? []).forEach((line) => t.diagnostic(line));
  assert.deepEqual(
    (await memory.turns(owner, { session: 's2' })).map((turn) => turn.speaker),
    ['user', 'assistant'], // the tool call and its output are not turns
  );

  // 3. Forgotten: the answer popped, the first session cleared; the next run recalls no peanuts.
  assert.deepEqual(await second.popItem(), {
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Avoid peanuts.' }],
  });
  await first.clearSession();
  assert.deepEqual(await memory.turns(owner, { session: 's1' }), []);
  model.requests.length = 0;
  model.script({ recall: 'What is the user allergic to?' }, { text: 'I know of nothing.' });
  await run(agent, "Remind me: what can't I eat?", { session: second });
  const [history, third] = model.requests;
  assert.deepEqual(transcript(history ?? []).slice(1), [
    'user: What should I avoid eating?', // the session's history, read by getItems
    "user: Remind me: what can't I eat?",
  ]);
  const recalledAgain = (third ?? []).find((message) => message.role === 'tool');
  assert.ok(recalledAgain !== undefined);
  assert.doesNotMatch(transcript(third ?? []).join('\n'), /peanut/i);
});
