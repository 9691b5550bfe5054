'use strict';
/**
 * node-ai-sdk-anthropic: the Vercel AI SDK's `streamText` with `@ai-sdk/anthropic`'s
 * `createAnthropic({baseURL, apiKey})(id)`; not streamed, `generateText` with the same model
 * and options. The base URL gets `/v1`, as the provider's own default has it.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, wholeOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAnthropic} = requirePeer(__dirname, '@ai-sdk/anthropic');

// What the SDK's documented settings ask (call settings `maxOutputTokens` and
// `stopSequences`, `providerOptions.anthropic`, the `anthropic.tools` factories: "Provider
// Options" and "Provider-Defined Tools" in the provider's docs):
// thinking: `providerOptions.anthropic.thinking`; programmatic_tool_calling:
//   `anthropic.tools.codeExecution_20250825` and a tool's
//   `providerOptions.anthropic.allowedCallers` (the provider then sends the beta);
// max_tokens: `maxOutputTokens` (the told N); stop_sequences: `stopSequences`;
// web_search, web_fetch, code_execution, tool_search: `anthropic.tools.webSearch_20250305`,
//   `webFetch_20250910`, `codeExecution_20250825`, `toolSearchRegex_20251119` /
//   `toolSearchBm25_20251119`, under the names their blocks carry.
// Not declared yet: programmatic_follow_up (this harness does not write the history's
//   `server_tool_use` and caller-bearing `tool_use` as AI SDK message parts).
// Left out: citations (a file part with `providerOptions.anthropic.citations` writes a text
//   or a PDF document, but no document with a `content` source, whose
//   `content_block_location` citations the feature serves too); search_results (no part or
//   option writes a `search_result` block).
const FEATURES = {'anthropic-messages': ['thinking', 'programmatic_tool_calling', 'max_tokens',
  'stop_sequences', 'web_search', 'web_fetch', 'code_execution', 'tool_search']};

/** A told server tool (as the Messages API writes it) as `[name, tool]`: the
 * `anthropic.tools` factory that declares it, under the name its blocks carry. */
function providerTool(tools, told) {
  const factory = {web_search_20250305: tools.webSearch_20250305,
    web_fetch_20250910: tools.webFetch_20250910,
    code_execution_20250825: tools.codeExecution_20250825,
    tool_search_tool_regex_20251119: tools.toolSearchRegex_20251119,
    tool_search_tool_bm25_20251119: tools.toolSearchBm25_20251119}[told.type];
  if (!factory) throw new Error(`harness: no anthropic.tools factory for ${told.type}`);
  return [told.name, factory({})];
}

/** The model and the provider's options, tools and settings for `request`, the same
 * streamed or not. */
function modelOf(baseUrl, request) {
  const provider = createAnthropic({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'});
  const thinking = request.thinking
    ? {type: 'enabled', budgetTokens: request.thinking.budget_tokens} : undefined;
  return [provider('mcs-model'), {
    providerOptions: thinking ? {anthropic: {thinking}} : undefined,
    toolOptions: request.allowed_callers
      ? {anthropic: {allowedCallers: request.allowed_callers}} : undefined,
    providerTools: Object.fromEntries((request.native_tools || [])
      .map((told) => providerTool(provider.tools, told))),
  }];
}

/** A protocol `run` making the request through `outcomeOf` (streamed or not). */
const runWith = (outcomeOf) => (wire, baseUrl, request) => {
  const [model, options] = modelOf(baseUrl, request);
  return outcomeOf(__dirname, model, request, options);
};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/anthropic'), runWith(streamOutcome),
  {features: FEATURES, whole: {'anthropic-messages': runWith(wholeOutcome)}});
