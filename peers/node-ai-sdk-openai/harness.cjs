'use strict';
/**
 * node-ai-sdk-openai: the Vercel AI SDK's `streamText` with `@ai-sdk/openai`:
 * `createOpenAI({baseURL, apiKey}).chat(id)` on openai-chat and `.responses(id)` on
 * openai-responses. The base URL gets `/v1`, as the provider's own default has it.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createOpenAI} = requirePeer(__dirname, '@ai-sdk/openai');

// The chat model always asks for the usage chunk; `streamText` has no `n`.
const FEATURES = {'openai-chat': ['include_usage']};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/openai'), (wire, baseUrl, request) => {
  const provider = createOpenAI({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'});
  const model = wire === 'openai-chat' ? provider.chat('mcs-model')
    : provider.responses('mcs-model');
  return streamOutcome(__dirname, model, request);
}, {features: FEATURES});
