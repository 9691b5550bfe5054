'use strict';
/**
 * node-anthropic: `@anthropic-ai/sdk`'s `client.messages.stream(...)` then `finalMessage()`,
 * as its README shows. Not streamed, `client.messages.create(...)` (the README's "Getting
 * started"), the same request and the same reading of the `Message` it returns. The SDK
 * appends `/v1/messages` to the base URL itself.
 */
const {serve, plain, requirePeer} = require('../node-protocol.cjs');

const Anthropic = requirePeer(__dirname, '@anthropic-ai/sdk');

// Every feature is a documented parameter of `messages.create()` / `messages.stream()` (the
// SDK's MessageCreateParams types), so none is left out:
// thinking: `thinking: {type: 'enabled', budget_tokens}`; programmatic_tool_calling:
//   `client.beta.messages` with `betas` (the anthropic-beta header), the code execution tool
//   and a tool's `allowed_callers` (BetaTool); programmatic_follow_up: the told history after
//   the question (BetaMessageParam) and `container`; max_tokens: `max_tokens`,
//   required: the told N, else 4096; stop_sequences: `stop_sequences`; web_search,
//   web_fetch, code_execution, tool_search: `tools` takes the server tools as the API writes
//   them (ToolUnion: WebSearchTool20250305, WebFetchTool20250910, CodeExecutionTool20250825,
//   ToolSearchToolRegex20251119 / Bm25); citations, search_results: the user message's
//   content blocks (ContentBlockParam: DocumentBlockParam with a text, base64 PDF or content
//   source, SearchResultBlockParam), `citations: {enabled: true}`.
const FEATURES = {'anthropic-messages': ['thinking', 'programmatic_tool_calling',
  'programmatic_follow_up', 'max_tokens',
  'stop_sequences', 'web_search', 'web_fetch', 'code_execution', 'tool_search', 'citations',
  'search_results']};
const PROMPT = 'Call the tool.';

/** The user message's content: the told documents and search results (before the question,
 * as the citations docs show them), then the question; the question alone without them. */
function contentOf(request) {
  const sources = [...(request.documents || []), ...(request.search_results || [])];
  return sources.length ? [...sources, {type: 'text', text: PROMPT}] : PROMPT;
}

/** The messages API to call (`client.beta.messages` when betas are told) and the request's
 * parameters, the same streamed or not. */
function messagesOf(baseUrl, request) {
  // maxRetries 0: a retried request would fetch the same served body again.
  const client = new Anthropic({baseURL: baseUrl.replace(/\/+$/, ''), apiKey: 'sk-mcs',
    maxRetries: 0});
  const options = {};
  const callers = request.allowed_callers ? {allowed_callers: request.allowed_callers} : {};
  const tools = [...request.tools.map(({name, description, parameters}) =>
    ({name, description, input_schema: parameters, ...callers})),
  ...(request.native_tools || [])];
  if (tools.length) options.tools = tools;
  if (request.stop_sequences) options.stop_sequences = request.stop_sequences;
  if (request.thinking) {
    options.thinking = {type: 'enabled', budget_tokens: request.thinking.budget_tokens};
  }
  let api = client.messages;
  if (request.betas && request.betas.length) {
    api = client.beta.messages;
    options.betas = request.betas;
  }
  const followUp = request.follow_up;
  if (followUp) options.container = followUp.container;
  return [api, {model: 'mcs-model', max_tokens: request.max_tokens ?? 4096, ...options,
    messages: [{role: 'user', content: contentOf(request)}, ...(followUp ? followUp.messages : [])]}];
}

/** The outcome of a `Message`, the stream's final one or the non-streamed one. */
function answerOf(message) {
  const blocks = message.content || [];
  // `input` of a tool_use block is what users read: the SDK parses it when first read.
  const calls = blocks.filter((block) => block.type === 'tool_use')
    .map((block) => ({name: block.name, arguments: plain(block.input), id: block.id ?? null}));
  const text = blocks.filter((block) => block.type === 'text').map((block) => block.text).join('');
  // `ParsedMessage` adds `parsed_output` (null without structured outputs) over the wire's
  // Message: the native message is the rest.
  const {parsed_output: parsedOutput, ...native} = message;
  return {calls, text, message: plain(native), error: null};
}

async function streamed(wire, baseUrl, request) {
  const [api, params] = messagesOf(baseUrl, request);
  return answerOf(await api.stream(params).finalMessage());
}

async function whole(wire, baseUrl, request) {
  const [api, params] = messagesOf(baseUrl, request);
  return answerOf(await api.create(params));
}

serve(__dirname, '@anthropic-ai/sdk', streamed,
  {features: FEATURES, whole: {'anthropic-messages': whole}});
