/**
 * What the tests run against: `graphmem serve` as a real process on 127.0.0.1 (the embedded store
 * in a new folder, the offline cognition, an admin key), and tiny local HTTP servers of their own.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The Python environment holding graphmem: GRAPHMEM_VENV, else the repository's .venv. */
const VENV =
  process.env['GRAPHMEM_VENV'] ?? fileURLToPath(new URL('../../../.venv', import.meta.url));
const GRAPHMEM = join(VENV, 'bin', 'graphmem');
/** How long `graphmem serve` may take to become ready. */
const READY_WITHIN_MS = 30_000;

/** A running `graphmem serve`. */
export interface Graphmem {
  /** Its address, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The secret of an admin key made for it. */
  admin: string;
  /** Stop it (SIGTERM) and remove its store; its exit code. */
  stop(): Promise<number | null>;
}

/** The environment without GRAPHMEM_* settings, so that the flags alone choose the store. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('GRAPHMEM_')),
  );
}

/** Start `graphmem serve` on a new embedded store with an admin key; it once /readyz answers. */
export async function startGraphmem(): Promise<Graphmem> {
  const folder = await mkdtemp(join(tmpdir(), 'graphmem-ts-'));
  const store = ['--store', 'networkx', '--path', join(folder, 'graph.json')];
  const env = cleanEnv();
  const made = await promisify(execFile)(
    GRAPHMEM,
    ['keys', 'create', '--admin', '--json', ...store],
    { cwd: folder, env },
  );
  const admin = (JSON.parse(made.stdout) as { secret: string }).secret;
  const port = await freePort();
  const server = spawn(GRAPHMEM, ['serve', '--port', String(port), ...store], {
    cwd: folder,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<number | null> => {
    server.kill('SIGTERM');
    const code = await exited;
    await rm(folder, { recursive: true, force: true });
    return code;
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  while (!(await answers(`${url}/readyz`))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`graphmem serve did not become ready:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // the next poll
  }
  return { url, admin, stop };
}

/** Whether a GET of the url answers 200. */
async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = await listen(() => undefined);
  await probe.close();
  return Number(new URL(probe.url).port);
}

/** A local HTTP server of a test's own. */
export interface Local {
  /** Its address, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Stop it, closing its connections. */
  close(): Promise<void>;
}

/** Serve requests with this listener on a free port of 127.0.0.1. */
export async function listen(listener: RequestListener): Promise<Local> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A request's body read whole, as JSON. */
export async function bodyOf(request: AsyncIterable<Buffer>): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString() || 'null');
}
