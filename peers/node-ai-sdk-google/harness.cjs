'use strict';
/**
 * node-ai-sdk-google: the Vercel AI SDK's `streamText` with `@ai-sdk/google`'s
 * `createGoogleGenerativeAI({baseURL, apiKey})(id)`. The base URL gets `/v1beta`, as the
 * provider's own default has it (the model then posts to
 * `<base>/v1beta/models/<id>:streamGenerateContent?alt=sse`).
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createGoogleGenerativeAI} = requirePeer(__dirname, '@ai-sdk/google');

// `providerOptions.google.thinkingConfig.includeThoughts`. The provider's
// `streamFunctionCallArguments` option is sent only by Vertex AI providers
// (`@ai-sdk/google-vertex`); this one drops it with a warning, so it is not declared.
const FEATURES = {gemini: ['include_thoughts']};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/google'), (wire, baseUrl, request) => {
  const thoughts = request.include_thoughts
    ? {google: {thinkingConfig: {includeThoughts: true}}} : undefined;
  return streamOutcome(__dirname,
    createGoogleGenerativeAI({baseURL: joinUrl(baseUrl, 'v1beta'), apiKey: 'sk-mcs'})(
      'gemini-2.5-flash'), request, {providerOptions: thoughts});
}, {features: FEATURES});
