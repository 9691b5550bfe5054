'use strict';
/**
 * What the two Vercel AI SDK peers share: one `streamText` request with the told tools
 * declared without `execute`, the calls read from the awaited final step (and the same
 * request through `generateText`, read the same way, for the non-streamed answer).
 *
 * The SDK validates each called tool name against the declared tools; the kit tells the
 * case's tool names (protocol v2), so its calls are the SDK's ordinary tool calls. Told no
 * tool (a replayed finding, a case without calls), the harness declares one placeholder
 * tool so that the request offers tools, and reads a call the SDK reports as undeclared
 * (a dynamic tool call marked `invalid` with a `NoSuchToolError`, still carrying the name,
 * the id and the input). See peers/node-ai-sdk-openai/README.md.
 */
const {argumentsOf, errorText, requirePeer, installedVersion} = require('./node-protocol.cjs');

const PLACEHOLDER = 'mcs_placeholder_tool';
const FAILED_FINISH = new Set(['error', 'content-filter']);

/** `ai`'s version with the provider package's, e.g. "3.0.141 (ai 6.0.326)". */
function versionOf(peerDir, provider) {
  return `${installedVersion(peerDir, provider)} (ai ${installedVersion(peerDir, 'ai')})`;
}

/** The outcome `arguments` of an SDK tool call's `input` (a parsed value or the raw text);
 * `freeText`: a tool whose input is free text (a custom tool's), kept as it is. */
function inputArguments(input, freeText) {
  if (typeof input === 'string') return freeText ? input : argumentsOf(input);
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input;
  // JSON that is not an object: the SDK parsed it and kept no raw text; write it back.
  return JSON.stringify(input);
}

/** The told tools as the SDK's tool set (the placeholder alone when none is told);
 * `toolOptions` are each tool's `providerOptions`. */
function toolSet(peerDir, request, toolOptions) {
  const {tool, jsonSchema} = requirePeer(peerDir, 'ai');
  const told = request.tools.length ? request.tools : [{name: PLACEHOLDER,
    description: 'Declared so that the request offers tools.',
    parameters: {type: 'object', properties: {}}}];
  return Object.fromEntries(told.map(({name, description, parameters}) => [name, tool({
    description, inputSchema: jsonSchema(parameters),
    ...(toolOptions ? {providerOptions: toolOptions} : {})})]));
}

/** What both calls ask for (`streamText`, `generateText`): the told tools (and
 * `providerTools`, the provider's own, by name), the provider's options, the told token
 * limit (else 4096) and stop sequences, the SDK's retries off. */
function callSettings(peerDir, model, request, {providerOptions, toolOptions, providerTools} = {}) {
  return {
    model,
    prompt: 'Call the tool.',
    tools: {...toolSet(peerDir, request, toolOptions), ...providerTools},
    ...(providerOptions ? {providerOptions} : {}),
    maxOutputTokens: request.max_tokens ?? 4096,
    ...(request.stop_sequences ? {stopSequences: request.stop_sequences} : {}),
    maxRetries: 0, // a retried request would fetch the same served body again
  };
}

/** The outcome of a step's tool calls, text and finish reason, and the errors seen;
 * `textTools`: the names of tools whose input is free text. */
function outcomeOf(toolCalls, text, finishReason, errors, textTools = new Set()) {
  // The SDK's documented report of an answer that failed: `finishReason` 'error' or
  // 'content-filter' (a user reads it beside the text); it is the library's error report.
  if (!errors.length && FAILED_FINISH.has(finishReason)) errors.push(`finishReason: ${finishReason}`);
  const calls = toolCalls.filter((call) => !call.providerExecuted).map((call) => ({
    name: call.toolName, arguments: inputArguments(call.input, textTools.has(call.toolName)),
    id: call.toolCallId ?? null}));
  return {calls, text, message: null,
    error: errors.length ? errors.map((e) => typeof e === 'string' ? e : errorText(e)).join('; ')
      : null};
}

/** One `streamText` request to `model` asking what `request` says, mapped to an outcome;
 * `providerOptions` and `toolOptions` carry the provider's own options, `providerTools` its
 * own tools, `textTools` the names of those whose input is free text. */
async function streamOutcome(peerDir, model, request, options = {}) {
  const {streamText} = requirePeer(peerDir, 'ai');
  const errors = [];
  const result = streamText({
    ...callSettings(peerDir, model, request, options),
    onError: ({error}) => errors.push(error), // the SDK's documented way to see stream errors
  });
  let toolCalls = [];
  let text = '';
  let finishReason;
  try {
    [toolCalls, text, finishReason] = await Promise.all([result.toolCalls, result.text,
      result.finishReason]);
  } catch (err) {
    errors.push(err);
  }
  return outcomeOf(toolCalls, text, finishReason, errors, options.textTools);
}

/** The same request through `generateText`, the SDK's non-streaming call ("Generating Text"
 * and "Tool Calling" in its docs), mapped as `streamOutcome` maps the stream; what it throws
 * is the outcome's error (the protocol's loop catches it). */
async function wholeOutcome(peerDir, model, request, options = {}) {
  const {generateText} = requirePeer(peerDir, 'ai');
  const result = await generateText(callSettings(peerDir, model, request, options));
  return outcomeOf(result.toolCalls, result.text, result.finishReason, [], options.textTools);
}

module.exports = {streamOutcome, wholeOutcome, versionOf};
