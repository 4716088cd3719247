/**
 * Preloaded (`node --import`) into a README example by the README test: the Agents SDK's default
 * model becomes the scripted chat completions endpoint at SCRIPTED_MODEL_URL, with no tracing.
 */
import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';

const baseURL = process.env['SCRIPTED_MODEL_URL'];
setDefaultOpenAIClient(new OpenAI({ apiKey: 'scripted', baseURL: baseURL ?? null, maxRetries: 0 }));
setOpenAIAPI('chat_completions');
setTracingDisabled(true);
