/**
 * A Session of the OpenAI Agents SDK for JavaScript (`@openai/agents`) kept in graphmem: a run's
 * conversation is stored as the turns of one owner's session, so that the memory builds as the
 * agent talks. Only types come from `@openai/agents`, so this entry point needs nothing at run
 * time but the client.
 */
import type { AgentInputItem, Session } from '@openai/agents';
import type { GraphMemClient, ObservedMessage, Turn } from './client.js';

/** The speakers graphmem takes for the agent itself (AGENT_SPEAKERS in graphmem/model.py). */
const AGENT_SPEAKERS = new Set(['assistant', 'agent', 'ai', 'bot', 'system']);

/** Whose memory a session's turns go to, and which of that owner's sessions it is. */
export interface GraphMemSessionOptions {
  /** The graphmem owner: the user (or agent) whose memory this is. */
  owner: string;
  /** The graphmem session the run's turns belong to: one conversation of that owner. */
  sessionId: string;
}

/**
 * The session (owner, sessionId) of graphmem as an Agents SDK Session.
 *
 * `addItems` stores each message as a turn of the session: a user's input message with speaker
 * "user", an assistant's output message with speaker "assistant", the text of its parts joined,
 * each with a new message id. Other items (function calls and their outputs, reasoning, hosted
 * tool calls) are not stored: graphmem remembers what was said, and tool calls are a run's
 * working state. So `getItems` gives back the conversation as `{role, content}` messages, and
 * `popItem` and `clearSession` forget turns as `forgetMessage` does, with what derives only from
 * them.
 */
export class GraphMemSession implements Session {
  private readonly client: GraphMemClient;
  private readonly owner: string;
  private readonly sessionId: string;

  /** A session of `options.owner`'s memory, reached through `client`. */
  constructor(client: GraphMemClient, options: GraphMemSessionOptions) {
    this.client = client;
    this.owner = options.owner;
    this.sessionId = options.sessionId;
  }

  /** The graphmem session's id. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The session's turns in order as messages: the last `limit` of them when given. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const query = limit === undefined ? {} : { last: limit };
    const turns = await this.client.turns(this.owner, { session: this.sessionId, ...query });
    return turns.map(asItem);
  }

  /** Store the messages among the items as turns of the session, in order (see the class). */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const messages: ObservedMessage[] = items.flatMap((item) => {
      const said = saying(item);
      return said === undefined
        ? []
        : [{ ...said, session: this.sessionId, message_id: crypto.randomUUID() }];
    });
    if (messages.length > 0) {
      await this.client.observeMany(this.owner, messages);
    }
  }

  /** Forget the session's last turn; it as a message, or undefined if the session is empty. */
  async popItem(): Promise<AgentInputItem | undefined> {
    const [last] = await this.client.turns(this.owner, { session: this.sessionId, last: 1 });
    if (last === undefined) return undefined;
    await this.client.forgetMessage(this.owner, last.id);
    return asItem(last);
  }

  /** Forget every turn of the session. */
  async clearSession(): Promise<void> {
    for (const turn of await this.client.turns(this.owner, { session: this.sessionId })) {
      await this.client.forgetMessage(this.owner, turn.id);
    }
  }
}

/** Who said a message item, and its text; undefined for an item that is not a message. */
function saying(item: AgentInputItem): { speaker: string; text: string } | undefined {
  if (!('role' in item) || (item.role !== 'user' && item.role !== 'assistant')) return undefined;
  const parts = typeof item.content === 'string' ? [item.content] : textsOf(item.content);
  const text = parts.join('\n');
  return text.trim() === '' ? undefined : { speaker: item.role, text };
}

/** The texts among a message's content parts (images, files and audio have none). */
function textsOf(content: readonly { type: string; text?: string }[]): string[] {
  return content.flatMap((part) =>
    (part.type === 'input_text' || part.type === 'output_text') && part.text !== undefined
      ? [part.text]
      : [],
  );
}

/** A turn as the message the SDK takes: the agent's as an assistant's output, others as input. */
function asItem(turn: Turn): AgentInputItem {
  if (AGENT_SPEAKERS.has((turn.speaker ?? 'user').toLowerCase())) {
    return {
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text }],
    };
  }
  return { role: 'user', content: turn.text };
}
