'use strict';
/**
 * What the two Vercel AI SDK peers share: one `streamText` request with tools declared
 * without `execute`, the calls read from the awaited final step.
 *
 * The SDK validates each called tool name against the declared tools. A harness cannot know
 * the case's tool names without reading the answer it is tested on, so it declares one
 * placeholder tool (so the request offers tools) and reads every call as the SDK reports
 * an undeclared one: a dynamic tool call marked `invalid` with a `NoSuchToolError`, still
 * carrying the name, the id and the input (parsed JSON, else the raw text). See
 * peers/node-ai-sdk-openai/README.md.
 */
const {argumentsOf, errorText, requirePeer, installedVersion} = require('./node-protocol.cjs');

const PLACEHOLDER = 'mcs_placeholder_tool';

/** `ai`'s version with the provider package's, e.g. "3.0.141 (ai 6.0.326)". */
function versionOf(peerDir, provider) {
  return `${installedVersion(peerDir, provider)} (ai ${installedVersion(peerDir, 'ai')})`;
}

/** The outcome `arguments` of an SDK tool call's `input` (a parsed value or the raw text). */
function inputArguments(input) {
  if (typeof input === 'string') return argumentsOf(input);
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input;
  // JSON that is not an object: the SDK parsed it and kept no raw text; write it back.
  return JSON.stringify(input);
}

/** One `streamText` request to `model`, mapped to an outcome. */
async function streamOutcome(peerDir, model) {
  const {streamText, tool, jsonSchema} = requirePeer(peerDir, 'ai');
  const errors = [];
  const result = streamText({
    model,
    prompt: 'Call the tool.',
    tools: {[PLACEHOLDER]: tool({description: 'Declared so that the request offers tools.',
      inputSchema: jsonSchema({type: 'object', properties: {}})})},
    maxOutputTokens: 1024,
    maxRetries: 0, // a retried request would fetch the same served body again
    onError: ({error}) => errors.push(error), // the SDK's documented way to see stream errors
  });
  let toolCalls = [];
  let text = '';
  try {
    [toolCalls, text] = await Promise.all([result.toolCalls, result.text]);
  } catch (err) {
    errors.push(err);
  }
  const calls = toolCalls.filter((call) => !call.providerExecuted).map((call) => ({
    name: call.toolName, arguments: inputArguments(call.input), id: call.toolCallId ?? null}));
  return {calls, text, message: null,
    error: errors.length ? errors.map(errorText).join('; ') : null};
}

module.exports = {streamOutcome, versionOf};
