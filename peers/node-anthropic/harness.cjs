'use strict';
/**
 * node-anthropic: `@anthropic-ai/sdk`'s `client.messages.stream(...)` then `finalMessage()`,
 * as its README shows. Not streamed, `client.messages.create(...)` (the README's "Getting
 * started"), the same request and the same reading of the `Message` it returns. The SDK
 * appends `/v1/messages` to the base URL itself.
 */
const {serve, plain, requirePeer} = require('../node-protocol.cjs');

const Anthropic = requirePeer(__dirname, '@anthropic-ai/sdk');

// `thinking` is a parameter of `messages.stream()`; betas go through `client.beta.messages`.
const FEATURES = {'anthropic-messages': ['thinking', 'programmatic_tool_calling']};

/** The messages API to call (`client.beta.messages` when betas are told) and the request's
 * parameters, the same streamed or not. */
function messagesOf(baseUrl, request) {
  // maxRetries 0: a retried request would fetch the same served body again.
  const client = new Anthropic({baseURL: baseUrl.replace(/\/+$/, ''), apiKey: 'sk-mcs',
    maxRetries: 0});
  const options = {};
  if (request.tools.length) {
    options.tools = request.tools.map(({name, description, parameters}) =>
      ({name, description, input_schema: parameters}));
  }
  if (request.thinking) {
    options.thinking = {type: 'enabled', budget_tokens: request.thinking.budget_tokens};
  }
  let api = client.messages;
  if (request.betas && request.betas.length) {
    api = client.beta.messages;
    options.betas = request.betas;
  }
  return [api, {model: 'mcs-model', max_tokens: 4096, ...options,
    messages: [{role: 'user', content: 'Call the tool.'}]}];
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
