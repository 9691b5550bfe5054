'use strict';
/**
 * node-ai-sdk-anthropic: the Vercel AI SDK's `streamText` with `@ai-sdk/anthropic`'s
 * `createAnthropic({baseURL, apiKey})(id)`; not streamed, `generateText` with the same model
 * and options. The base URL gets `/v1`, as the provider's own default has it.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, wholeOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAnthropic} = requirePeer(__dirname, '@ai-sdk/anthropic');

// `providerOptions.anthropic.thinking`; a tool's `allowedCallers` makes the provider send
// the programmatic tool calling beta.
const FEATURES = {'anthropic-messages': ['thinking', 'programmatic_tool_calling']};

/** The model and the provider's options for `request`, the same streamed or not. */
function modelOf(baseUrl, request) {
  const thinking = request.thinking
    ? {type: 'enabled', budgetTokens: request.thinking.budget_tokens} : undefined;
  const programmatic = (request.betas || []).length > 0;
  return [createAnthropic({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'})('mcs-model'), {
    providerOptions: thinking ? {anthropic: {thinking}} : undefined,
    toolOptions: programmatic
      ? {anthropic: {allowedCallers: ['code_execution_20250825']}} : undefined,
  }];
}

/** A protocol `run` making the request through `outcomeOf` (streamed or not). */
const runWith = (outcomeOf) => (wire, baseUrl, request) => {
  const [model, options] = modelOf(baseUrl, request);
  return outcomeOf(__dirname, model, request, options);
};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/anthropic'), runWith(streamOutcome),
  {features: FEATURES, whole: {'anthropic-messages': runWith(wholeOutcome)}});
