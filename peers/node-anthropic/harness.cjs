'use strict';
/**
 * node-anthropic: `@anthropic-ai/sdk`'s `client.messages.stream(...)` then `finalMessage()`,
 * as its README shows. The SDK appends `/v1/messages` to the base URL itself.
 */
const {serve, plain, requirePeer} = require('../node-protocol.cjs');

const Anthropic = requirePeer(__dirname, '@anthropic-ai/sdk');

// A tool declared so that the request allows tool use; the stream helper does not check
// the names the model calls against it.
const TOOL = {name: 'mcs_tool', input_schema: {type: 'object', properties: {}}};

async function messages(baseUrl) {
  // maxRetries 0: a retried request would fetch the same served body again.
  const client = new Anthropic({baseURL: baseUrl.replace(/\/+$/, ''), apiKey: 'sk-mcs',
    maxRetries: 0});
  const stream = client.messages.stream({
    model: 'mcs-model', max_tokens: 1024, tools: [TOOL],
    messages: [{role: 'user', content: 'Call the tool.'}],
  });
  const message = await stream.finalMessage();
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

serve(__dirname, '@anthropic-ai/sdk', (wire, baseUrl) => messages(baseUrl));
