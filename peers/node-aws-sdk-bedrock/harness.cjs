'use strict';
/**
 * node-aws-sdk-bedrock: the AWS SDK for JavaScript v3's `ConverseStreamCommand`
 * (`@aws-sdk/client-bedrock-runtime`), sent with `client.send(...)` and read as AWS's
 * streaming tool-use example reads `response.stream`: each event's text delta joined, a tool
 * block's `contentBlockStart` naming the call and its `toolUse.input` deltas joined until its
 * `contentBlockStop`. The client's `endpoint` is the case URL (the SDK posts to
 * `<base>/model/<id>/converse-stream`), signed with dummy credentials; `maxAttempts: 1`.
 * The client's default request handler speaks HTTP/2 only (`NodeHttp2Handler`), which an
 * HTTP/1.1 endpoint such as the kit's refuses; as a user of such an endpoint does, the
 * harness passes the SDK's HTTP/1.1 handler, `new NodeHttpHandler()`.
 */
const {serve, argumentsOf, requirePeer} = require('../node-protocol.cjs');

const {BedrockRuntimeClient, ConverseStreamCommand} =
  requirePeer(__dirname, '@aws-sdk/client-bedrock-runtime');
const {NodeHttpHandler} = requirePeer(__dirname, '@smithy/node-http-handler');

// No request feature on bedrock-converse.
const FEATURES = {'bedrock-converse': []};

// Stop reasons the Converse API documents as an answer that failed; any other one
// (end_turn, tool_use, max_tokens, stop_sequence, ...) ended it normally.
const FAILED_STOP = new Set(['guardrail_intervened', 'content_filtered',
  'malformed_model_output', 'malformed_tool_use']);

async function converse(baseUrl, request) {
  const client = new BedrockRuntimeClient({region: 'us-east-1', endpoint: baseUrl,
    credentials: {accessKeyId: 'x', secretAccessKey: 'x'}, maxAttempts: 1,
    requestHandler: new NodeHttpHandler()});
  const input = {
    modelId: 'anthropic.claude-sonnet-4-20250514-v1:0',
    messages: [{role: 'user', content: [{text: 'Call the tool.'}]}],
    inferenceConfig: {maxTokens: 4096},
  };
  if (request.tools.length) {
    input.toolConfig = {tools: request.tools.map(({name, description, parameters}) =>
      ({toolSpec: {name, description, inputSchema: {json: parameters}}}))};
  }
  const response = await client.send(new ConverseStreamCommand(input));
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
      const reason = event.messageStop.stopReason;
      if (FAILED_STOP.has(reason)) stopped = `stopReason: ${reason}`;
    }
  }
  // The SDK yields events and assembles no Converse response: no native message.
  return {calls: calls.map(({name, id, input}) => ({name, arguments: argumentsOf(input), id})),
    text, message: null, error: stopped};
}

serve(__dirname, '@aws-sdk/client-bedrock-runtime',
  (wire, baseUrl, request) => converse(baseUrl, request), {features: FEATURES});
