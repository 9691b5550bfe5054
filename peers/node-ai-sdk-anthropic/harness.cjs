'use strict';
/**
 * node-ai-sdk-anthropic: the Vercel AI SDK's `streamText` with `@ai-sdk/anthropic`'s
 * `createAnthropic({baseURL, apiKey})(id)`. The base URL gets `/v1`, as the provider's own
 * default has it.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAnthropic} = requirePeer(__dirname, '@ai-sdk/anthropic');

// `providerOptions.anthropic.thinking`; a tool's `allowedCallers` makes the provider send
// the programmatic tool calling beta.
const FEATURES = {'anthropic-messages': ['thinking', 'programmatic_tool_calling']};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/anthropic'), (wire, baseUrl, request) => {
  const thinking = request.thinking
    ? {type: 'enabled', budgetTokens: request.thinking.budget_tokens} : undefined;
  const programmatic = (request.betas || []).length > 0;
  return streamOutcome(__dirname,
    createAnthropic({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'})('mcs-model'), request, {
      providerOptions: thinking ? {anthropic: {thinking}} : undefined,
      toolOptions: programmatic
        ? {anthropic: {allowedCallers: ['code_execution_20250825']}} : undefined,
    });
}, {features: FEATURES});
