'use strict';
/**
 * node-google-genai: `@google/genai`'s `ai.models.generateContentStream(...)`, as its README
 * streams with function declarations: each chunk's `chunk.text` joined, each chunk's
 * `chunk.functionCalls` collected. The client's `httpOptions.baseUrl` is the case URL (the
 * SDK appends `/v1beta/models/<model>:streamGenerateContent?alt=sse`). Not streamed:
 * `ai.models.generateContent(...)` with the same parameters, its response read as a chunk is.
 */
const {serve, requirePeer} = require('../node-protocol.cjs');

const {GoogleGenAI} = requirePeer(__dirname, '@google/genai');

// Every gemini feature is a documented field of `GenerateContentConfig`: include_thoughts:
// `config.thinkingConfig.includeThoughts`; stream_function_call_arguments:
// `config.toolConfig.functionCallingConfig.streamFunctionCallArguments`, which the SDK
// documents as Vertex AI's only: asked through a Vertex AI client in express mode
// (`enterprise: true` with an API key) at the same base URL; max_tokens:
// `config.maxOutputTokens`. None is left out.
const FEATURES = {gemini: ['include_thoughts', 'stream_function_call_arguments', 'max_tokens']};

// Finish reasons of an answer that ended normally; any other one (SAFETY, RECITATION,
// MALFORMED_FUNCTION_CALL, ...) is how the SDK tells its user the answer failed.
const NORMAL_FINISH = new Set(['STOP', 'MAX_TOKENS', 'FINISH_REASON_UNSPECIFIED']);

/** The outcome `arguments` of a `FunctionCall.args` (an object, or none). */
function callArguments(args) {
  if (args === undefined || args === null) return {}; // a call without args: no parameters
  if (typeof args === 'object' && !Array.isArray(args)) return args;
  return JSON.stringify(args); // JSON that is not an object: written back as text
}

/** The client at `baseUrl` and the `generateContent` parameters asking what `request` says. */
function clientAndParams(baseUrl, request) {
  const vertex = Boolean(request.stream_function_call_arguments);
  // No retryOptions: the SDK then makes one attempt (a retried request would fetch the same
  // served body again).
  const ai = new GoogleGenAI({apiKey: 'sk-mcs', ...(vertex ? {enterprise: true} : {}),
    httpOptions: {baseUrl}});
  const config = {};
  if (request.tools.length) {
    // The README declares tools with `parametersJsonSchema`: a JSON Schema as it is.
    config.tools = [{functionDeclarations: request.tools.map(({name, description, parameters}) =>
      ({name, description, parametersJsonSchema: parameters}))}];
  }
  if (request.include_thoughts) config.thinkingConfig = {includeThoughts: true};
  if (request.max_tokens !== undefined) config.maxOutputTokens = request.max_tokens;
  if (vertex) {
    config.toolConfig = {functionCallingConfig: {streamFunctionCallArguments: true}};
  }
  return [ai, {model: 'gemini-2.5-flash', contents: 'Call the tool.', config}];
}

/** The outcome of `GenerateContentResponse`s in order: the stream's chunks, or the one whole
 * response. */
async function outcomeOf(responses) {
  let text = '';
  const calls = [];
  let stopped = null; // the answer's failure as the SDK reports it: a finish reason or a block
  for await (const response of responses) {
    const finish = response.candidates?.[0]?.finishReason;
    if (finish && !NORMAL_FINISH.has(finish)) stopped = `finishReason: ${finish}`;
    const blocked = response.promptFeedback?.blockReason;
    if (blocked) stopped = `promptFeedback.blockReason: ${blocked}`;
    text += response.text ?? '';
    for (const call of response.functionCalls ?? []) {
      calls.push({name: typeof call.name === 'string' ? call.name : '',
        arguments: callArguments(call.args), id: call.id ?? null});
    }
  }
  // The SDK yields chunks and assembles no whole GenerateContentResponse: no native message
  // (none for the non-streamed response either, read the same way as a chunk).
  return {calls, text, message: null, error: stopped};
}

async function generate(baseUrl, request) {
  const [ai, params] = clientAndParams(baseUrl, request);
  return outcomeOf(await ai.models.generateContentStream(params));
}

/** The non-streamed answer: `ai.models.generateContent(...)`, as the README's "Function
 * Calling" sample reads `response.functionCalls` (and "Quickstart" `response.text`). */
async function generateWhole(baseUrl, request) {
  const [ai, params] = clientAndParams(baseUrl, request);
  return outcomeOf([await ai.models.generateContent(params)]);
}

serve(__dirname, '@google/genai', (wire, baseUrl, request) => generate(baseUrl, request),
  {features: FEATURES,
    whole: {gemini: (wire, baseUrl, request) => generateWhole(baseUrl, request)}});
