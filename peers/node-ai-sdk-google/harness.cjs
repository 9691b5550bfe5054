'use strict';
/**
 * node-ai-sdk-google: the Vercel AI SDK's `streamText` with `@ai-sdk/google`'s
 * `createGoogleGenerativeAI({baseURL, apiKey})(id)`. The base URL gets `/v1beta`, as the
 * provider's own default has it (the model then posts to
 * `<base>/v1beta/models/<id>:streamGenerateContent?alt=sse`). Not streamed: `generateText`
 * with the same model and options (it posts to `...:generateContent`).
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, wholeOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createGoogleGenerativeAI} = requirePeer(__dirname, '@ai-sdk/google');

// include_thoughts: `providerOptions.google.thinkingConfig.includeThoughts`; max_tokens: the
// SDK's own call setting `maxOutputTokens` (node-ai-sdk.cjs passes the told limit), sent as
// `generationConfig.maxOutputTokens`. Left out: stream_function_call_arguments: the
// provider's `streamFunctionCallArguments` option is sent only by Vertex AI providers
// (`@ai-sdk/google-vertex`); this one drops it with a warning.
const FEATURES = {gemini: ['include_thoughts', 'max_tokens']};

/** `outcomeOf(peerDir, model, request, options)` (the shared `streamOutcome` or
 * `wholeOutcome`) with the Gemini model at `baseUrl` and the options `request` asks for. */
function google(outcomeOf) {
  return (wire, baseUrl, request) => {
    const thoughts = request.include_thoughts
      ? {google: {thinkingConfig: {includeThoughts: true}}} : undefined;
    return outcomeOf(__dirname,
      createGoogleGenerativeAI({baseURL: joinUrl(baseUrl, 'v1beta'), apiKey: 'sk-mcs'})(
        'gemini-2.5-flash'), request, {providerOptions: thoughts});
  };
}

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/google'), google(streamOutcome),
  {features: FEATURES, whole: {gemini: google(wholeOutcome)}});
