'use strict';
/**
 * node-ai-sdk-openai: the Vercel AI SDK's `streamText` with `@ai-sdk/openai`:
 * `createOpenAI({baseURL, apiKey}).chat(id)` on openai-chat and `.responses(id)` on
 * openai-responses. The base URL gets `/v1`, as the provider's own default has it.
 * Not streamed: `generateText` with the same model and request, read the same way.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, wholeOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createOpenAI} = requirePeer(__dirname, '@ai-sdk/openai');

// The chat model always asks for the usage chunk; `streamText` has no `n`.
const FEATURES = {'openai-chat': ['include_usage']};

/** `outcomeOf(peerDir, model, request)` (the shared `streamOutcome` or `wholeOutcome`) with
 * the wire's OpenAI model at `baseUrl`. */
function openai(outcomeOf) {
  return (wire, baseUrl, request) => {
    const provider = createOpenAI({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'});
    const model = wire === 'openai-chat' ? provider.chat('mcs-model')
      : provider.responses('mcs-model');
    return outcomeOf(__dirname, model, request);
  };
}

// `generateText` ("Generating and Streaming Text" in the SDK's docs) on both wires.
serve(__dirname, () => versionOf(__dirname, '@ai-sdk/openai'), openai(streamOutcome),
  {features: FEATURES, whole: {'openai-chat': openai(wholeOutcome),
    'openai-responses': openai(wholeOutcome)}});
