'use strict';
/**
 * node-aws-sdk-bedrock: the AWS SDK for JavaScript v3's `ConverseStreamCommand`
 * (`@aws-sdk/client-bedrock-runtime`), sent with `client.send(...)` and read as AWS's
 * streaming tool-use example reads `response.stream`: each event's text delta joined, a tool
 * block's `contentBlockStart` naming the call and its `toolUse.input` deltas joined until its
 * `contentBlockStop`. Not streamed, `ConverseCommand` with the same input, its
 * `output.message.content` blocks read by the same mapping. The client's `endpoint` is the
 * case URL (the SDK posts to `<base>/model/<id>/converse-stream`, or `.../converse`), signed
 * with dummy credentials; `maxAttempts: 1`.
 * The client's default request handler speaks HTTP/2 only (`NodeHttp2Handler`), which an
 * HTTP/1.1 endpoint such as the kit's refuses; as a user of such an endpoint does, the
 * harness passes the SDK's HTTP/1.1 handler, `new NodeHttpHandler()`.
 */
const {serve, argumentsOf, requirePeer} = require('../node-protocol.cjs');

const {BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand} =
  requirePeer(__dirname, '@aws-sdk/client-bedrock-runtime');
const {NodeHttpHandler} = requirePeer(__dirname, '@smithy/node-http-handler');

// What the input of `ConverseStreamCommand` and `ConverseCommand` (one shape, the API
// reference's) asks:
// max_tokens: `inferenceConfig: {maxTokens: N}` (the harness sends 4096 when told none);
// reasoning: `additionalModelRequestFields: {thinking: {type: 'enabled', budget_tokens: N}}`
//   (the model's own fields beyond `inferenceConfig`; the Bedrock User Guide's "Extended
//   thinking" page enables Claude's thinking with exactly this field).
// No feature of the wire is left out.
const FEATURES = {'bedrock-converse': ['max_tokens', 'reasoning']};

// Stop reasons the Converse API documents as an answer that failed; any other one
// (end_turn, tool_use, max_tokens, stop_sequence, ...) ended it normally.
const FAILED_STOP = new Set(['guardrail_intervened', 'content_filtered',
  'malformed_model_output', 'malformed_tool_use']);

/** A client at the case URL, dummy credentials, one attempt, HTTP/1.1. */
function clientOf(baseUrl) {
  return new BedrockRuntimeClient({region: 'us-east-1', endpoint: baseUrl,
    credentials: {accessKeyId: 'x', secretAccessKey: 'x'}, maxAttempts: 1,
    requestHandler: new NodeHttpHandler()});
}

/** The input of both commands: the told tools as `toolConfig.tools[].toolSpec`, the told
 * token limit and thinking budget (`FEATURES`). */
function converseInput(request) {
  const input = {
    modelId: 'anthropic.claude-sonnet-4-20250514-v1:0',
    messages: [{role: 'user', content: [{text: 'Call the tool.'}]}],
    inferenceConfig: {maxTokens: request.max_tokens ?? 4096},
  };
  if (request.reasoning) {
    input.additionalModelRequestFields = {thinking: {type: 'enabled',
      budget_tokens: request.reasoning.budget_tokens}};
  }
  if (request.tools.length) {
    input.toolConfig = {tools: request.tools.map(({name, description, parameters}) =>
      ({toolSpec: {name, description, inputSchema: {json: parameters}}}))};
  }
  return input;
}

/** The answer's failure told by its stop reason, or null. */
function failure(stopReason) {
  return FAILED_STOP.has(stopReason) ? `stopReason: ${stopReason}` : null;
}

/**
 * A call's outcome `arguments`: the input text the stream joined, as `argumentsOf` reads it,
 * or the JSON value `ConverseCommand` parsed: an object as it is, a string as that text, any
 * other value written back as its JSON text.
 */
function callArguments(input) {
  if (input === undefined || typeof input === 'string') return argumentsOf(input ?? '');
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input;
  return JSON.stringify(input);
}

/** The outcome of an answer's calls (`{name, id, input}`, in order), text and failure. */
function outcomeOf(calls, text, error) {
  // The SDK assembles no Converse response from a stream: no native message either way.
  return {calls: calls.map(({name, id, input}) => ({name, arguments: callArguments(input), id})),
    text, message: null, error};
}

async function converseStream(baseUrl, request) {
  const response = await clientOf(baseUrl).send(new ConverseStreamCommand(converseInput(request)));
  let text = '';
  const calls = []; // in the order their blocks start
  const open = new Map(); // contentBlockIndex -> the call its block is streaming
  let stopped = null;
  for await (const event of response.stream) {
    if (event.contentBlockStart?.start?.toolUse) {
      const {toolUseId, name} = event.contentBlockStart.start.toolUse;
      const call = {name: name ?? '', id: toolUseId ?? null, input: ''};
      calls.push(call);
      open.set(event.contentBlockStart.contentBlockIndex, call);
    } else if (event.contentBlockDelta) {
      const {delta = {}, contentBlockIndex} = event.contentBlockDelta;
      if (typeof delta.text === 'string') {
        text += delta.text;
      } else if (delta.toolUse) {
        let call = open.get(contentBlockIndex);
        if (!call) { // input for a block that never started: a call without name or id
          call = {name: '', id: null, input: ''};
          calls.push(call);
          open.set(contentBlockIndex, call);
        }
        call.input += delta.toolUse.input ?? '';
      }
    } else if (event.contentBlockStop) {
      open.delete(event.contentBlockStop.contentBlockIndex);
    } else if (event.messageStop) {
      stopped = failure(event.messageStop.stopReason) ?? stopped;
    }
  }
  return outcomeOf(calls, text, stopped);
}

/**
 * `client.send(new ConverseCommand(input))`, the non-streaming Converse operation (the
 * README's command list, ConverseCommand's API reference: `output.message.content` and
 * `stopReason`), read as the stream is read.
 */
async function converse(baseUrl, request) {
  const response = await clientOf(baseUrl).send(new ConverseCommand(converseInput(request)));
  const content = response.output?.message?.content ?? [];
  const calls = content.filter((block) => block.toolUse).map(({toolUse}) =>
    ({name: toolUse.name ?? '', id: toolUse.toolUseId ?? null, input: toolUse.input}));
  const text = content.filter((block) => typeof block.text === 'string')
    .map((block) => block.text).join('');
  return outcomeOf(calls, text, failure(response.stopReason));
}

serve(__dirname, '@aws-sdk/client-bedrock-runtime',
  (wire, baseUrl, request) => converseStream(baseUrl, request),
  {features: FEATURES, whole: {'bedrock-converse': (wire, baseUrl, request) => converse(baseUrl, request)}});
