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

// What the SDK's documented settings ask (`maxOutputTokens`, `providerOptions.openai`: the
// provider's OpenAIChatLanguageModelOptions and OpenAIResponsesProviderOptions, and the
// `openai.tools` factories, "Provider-Defined Tools" in its docs):
// openai-chat: include_usage (the chat model's doStream always asks it); max_tokens
//   (`maxOutputTokens`, sent as `max_tokens`); logprobs (`providerOptions.openai.logprobs:
//   true`). Left out: n (`streamText` has no such setting); web_search (the chat model has no
//   `web_search_options` setting, and its options schema keeps no other key).
// openai-responses: custom_tools (`openai.tools.customTool({name})`), local_shell
//   (`localShell`), shell and hosted_shell (`shell` with a local or `containerAuto`
//   environment), apply_patch (`applyPatch`), web_search (`webSearch`), file_search
//   (`fileSearch({vectorStoreIds})`), code_interpreter (`codeInterpreter`), include (the
//   model adds `code_interpreter_call.outputs` itself beside codeInterpreter), image_generation
//   (`imageGeneration`), mcp (`mcp({serverLabel, serverUrl})`), tool_search (`toolSearch`),
//   reasoning_summary (`providerOptions.openai.reasoningSummary`, with `forceReasoning: true`,
//   documented for a reasoning model whose id the SDK does not know, as the kit's is),
//   max_tokens (`maxOutputTokens`, sent as `max_output_tokens`). Left out: computer_use (no
//   computer tool factory), compaction (no `context_management` setting), background (no
//   `background` setting).
const FEATURES = {
  'openai-chat': ['include_usage', 'max_tokens', 'logprobs'],
  'openai-responses': ['custom_tools', 'local_shell', 'shell', 'hosted_shell', 'apply_patch',
    'web_search', 'file_search', 'code_interpreter', 'include', 'image_generation', 'mcp',
    'tool_search', 'reasoning_summary', 'max_tokens'],
};

/** A told provider tool (as the Responses API writes it) as `[name, tool]`: the
 * `openai.tools` factory that declares it, under the name its calls come back with. */
function providerTool(tools, told) {
  switch (told.type) {
    case 'custom':
      return [told.name, tools.customTool({name: told.name})];
    case 'shell': // the hosted one under its own name, so that both may be declared
      return told.environment.type === 'container_auto'
        ? ['hosted_shell', tools.shell({environment: {type: 'containerAuto'}})]
        : ['shell', tools.shell({environment: {type: 'local'}})];
    case 'file_search':
      return ['file_search', tools.fileSearch({vectorStoreIds: told.vector_store_ids})];
    case 'mcp':
      return [`mcp_${told.server_label}`,
        tools.mcp({serverLabel: told.server_label, serverUrl: told.server_url})];
    default: {
      const factory = {local_shell: tools.localShell, apply_patch: tools.applyPatch,
        web_search: tools.webSearch, code_interpreter: tools.codeInterpreter,
        image_generation: tools.imageGeneration, tool_search: tools.toolSearch}[told.type];
      if (!factory) throw new Error(`harness: no openai.tools factory for ${told.type}`);
      return [told.type, factory({})];
    }
  }
}

/** The provider's tools, options and free-text tool names `request` asks on `wire`. */
function openaiOptions(provider, wire, request) {
  const told = request.native_tools || [];
  const openai = {};
  if (wire === 'openai-chat' && request.logprobs) openai.logprobs = true;
  if (request.reasoning_summary !== undefined) {
    Object.assign(openai, {reasoningSummary: request.reasoning_summary, forceReasoning: true});
  }
  return {
    providerTools: Object.fromEntries(told.map((tool) => providerTool(provider.tools, tool))),
    textTools: new Set(told.filter((tool) => tool.type === 'custom').map((tool) => tool.name)),
    ...(Object.keys(openai).length ? {providerOptions: {openai}} : {}),
  };
}

/** `outcomeOf(peerDir, model, request, options)` (the shared `streamOutcome` or
 * `wholeOutcome`) with the wire's OpenAI model at `baseUrl`. */
function openai(outcomeOf) {
  return (wire, baseUrl, request) => {
    const provider = createOpenAI({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'});
    const model = wire === 'openai-chat' ? provider.chat('mcs-model')
      : provider.responses('mcs-model');
    return outcomeOf(__dirname, model, request, openaiOptions(provider, wire, request));
  };
}

// `generateText` ("Generating and Streaming Text" in the SDK's docs) on both wires.
serve(__dirname, () => versionOf(__dirname, '@ai-sdk/openai'), openai(streamOutcome),
  {features: FEATURES, whole: {'openai-chat': openai(wholeOutcome),
    'openai-responses': openai(wholeOutcome)}});
