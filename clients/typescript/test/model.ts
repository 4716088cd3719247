/**
 * A scripted model: an OpenAI-compatible chat completions endpoint on 127.0.0.1 that answers
 * with the replies a test scripts (a text, or a call of the recall_memory tool) and keeps the
 * messages of every request it received.
 */
import { bodyOf, listen, type Local } from './graphmem.js';

/** A message of a chat completions request, as far as the tests read it. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

/** What the scripted model answers next: a text, or a call of the recall_memory tool. */
export type Reply = { text: string } | { recall: string };

/** A chat completions endpoint answering with scripted replies; the requests it received. */
export interface ScriptedModel extends Local {
  requests: ChatMessage[][];
  script(...replies: Reply[]): void;
}

/** Serve /v1/chat/completions on a free port, answering each request with the next reply. */
export async function scriptedModel(): Promise<ScriptedModel> {
  const requests: ChatMessage[][] = [];
  const replies: Reply[] = [];
  const server = await listen(async (request, response) => {
    const body = (await bodyOf(request)) as { messages: ChatMessage[] };
    requests.push(body.messages);
    const reply = replies.shift();
    const message =
      reply === undefined || 'text' in reply
        ? { role: 'assistant', content: reply?.text ?? 'unscripted request' }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${requests.length}`,
                type: 'function',
                function: {
                  name: 'recall_memory',
                  arguments: JSON.stringify({ query: reply.recall }),
                },
              },
            ],
          };
    const finish = 'tool_calls' in message ? 'tool_calls' : 'stop';
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 0,
        model: 'scripted',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
  return { ...server, requests, script: (...more) => replies.push(...more) };
}

/** A request's messages as text, each `role: content` (or the tools it calls). */
export function transcript(messages: ChatMessage[]): string[] {
  return messages.map(({ role, content, tool_calls: calls }) => {
    const said = calls?.map(({ function: call }) => `calls ${call.name}(${call.arguments})`);
    return `${role}: ${said?.join(', ') ?? String(content)}`;
  });
}
