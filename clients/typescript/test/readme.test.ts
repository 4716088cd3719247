/**
 * Each `ts` block of README.md type-checks with the package's tsconfig, and runs as a reader would
 * run it, against a live `graphmem serve` at the README's address and with the scripted model as
 * the Agents SDK's default (readme-model.ts): it must print what the `text` block after it shows,
 * where `...` stands for any text.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { GraphMemClient } from '@graphmem/client';
import { type Graphmem, startGraphmem } from './graphmem.js';
import { type ScriptedModel, scriptedModel, transcript } from './model.js';

const README = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const FENCE = /^```(\w+)\n(.*?)^```$/gms;
/** Where the README's examples find graphmem serve. */
const README_URL = 'http://127.0.0.1:8420';
const run = promisify(execFile);

/** The README's `ts` blocks, each with the `text` block right after it (what it prints). */
function examples(markdown: string): { code: string; prints: string }[] {
  const blocks = [...markdown.matchAll(FENCE)].map(([, language, text]) => ({ language, text }));
  return blocks.flatMap((block, index) => {
    const next = blocks[index + 1];
    return block.language !== 'ts'
      ? []
      : [{ code: block.text ?? '', prints: next?.language === 'text' ? (next.text ?? '') : '' }];
  });
}

/** A pattern of the printed text: `...` stands for any text. */
function printing(expected: string): RegExp {
  const parts = expected.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*?')}$`, 's');
}

const EXAMPLES = examples(README);
/** Where each example is written to run (beside the build, so that it imports this package). */
const FILES = EXAMPLES.map((_, index) => new URL(`readme-${index + 1}.mts`, import.meta.url));

let graphmem: Graphmem;
let model: ScriptedModel;
let key: string;

before(async () => {
  [graphmem, model] = await Promise.all([startGraphmem(), scriptedModel()]);
  const admin = new GraphMemClient(graphmem.url, { key: graphmem.admin });
  key = (await admin.createKey({ owners: ['alice'] })).secret;
  for (const [index, { code }] of EXAMPLES.entries()) {
    await writeFile(FILES[index]!, code.replaceAll(README_URL, graphmem.url));
  }
});

after(async () => {
  await Promise.all([graphmem.stop(), model.close()]);
});

test('the README examples type-check with the tsconfig of the package', async () => {
  const config = new URL('readme.tsconfig.json', import.meta.url);
  const settings = { extends: '../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.' } };
  await writeFile(config, JSON.stringify({ ...settings, include: ['readme-*.mts'] }));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  await run(process.execPath, [tsc, '-p', fileURLToPath(config)]).catch(
    (failed: { stdout: string }) => assert.fail(failed.stdout),
  );
});

for (const [index, { code, prints }] of EXAMPLES.entries()) {
  test(`README example ${index + 1} prints what the README shows`, async () => {
    const agents = code.includes("from '@openai/agents'");
    if (agents) {
      // What the model answers: noted; a call of the recall tool; the answer.
      model.script(
        { text: 'Noted.' },
        { recall: 'What is the user allergic to?' },
        { text: 'Avoid peanuts: you told me you are allergic to them.' },
      );
    }
    const preload = fileURLToPath(new URL('readme-model.js', import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ['--import', preload, fileURLToPath(FILES[index]!)],
      { env: { ...process.env, GRAPHMEM_KEY: key, SCRIPTED_MODEL_URL: `${model.url}/v1` } },
    );
    assert.match(stdout, printing(prints));
    if (agents) {
      const told = model.requests.flatMap(transcript).filter((line) => line.startsWith('tool: '));
      assert.match(told.join('\n'), /I'm allergic to peanuts\./); // the memory reached the model
    }
  });
}
