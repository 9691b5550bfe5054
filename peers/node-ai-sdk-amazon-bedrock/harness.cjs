'use strict';
/**
 * node-ai-sdk-amazon-bedrock: the Vercel AI SDK's `streamText` with `@ai-sdk/amazon-bedrock`'s
 * `createAmazonBedrock({baseURL, region, accessKeyId, secretAccessKey})(id)`. The base URL is
 * the case URL, as a user sets a custom endpoint (the model posts to
 * `<base>/model/<id>/converse-stream`), and the provider signs each request with SigV4 from
 * the dummy credentials. Not streamed, `generateText` with the same model and request (the
 * model's `doGenerate` posts to `<base>/model/<id>/converse`), read the same way.
 */
const {serve, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, wholeOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAmazonBedrock} = requirePeer(__dirname, '@ai-sdk/amazon-bedrock');

// What the AI SDK's call settings and the provider's documented options ask:
// max_tokens: the call setting `maxOutputTokens: N` (node-ai-sdk.cjs; the SDK docs' "Settings"),
//   sent as `inferenceConfig.maxTokens` (the provider adds a thinking budget to it);
// reasoning: `providerOptions: {bedrock: {reasoningConfig: {type: 'enabled', budgetTokens: N}}}`
//   (the provider's docs, "Reasoning", Anthropic example), which the provider sends to an
//   Anthropic model as `additionalModelRequestFields.thinking`.
// No feature of the wire is left out.
const FEATURES = {'bedrock-converse': ['max_tokens', 'reasoning']};

/** The model at the case URL, the same streamed or not. */
function modelOf(baseUrl) {
  return createAmazonBedrock({baseURL: baseUrl, region: 'us-east-1',
    accessKeyId: 'x', secretAccessKey: 'x'})('anthropic.claude-sonnet-4-20250514-v1:0');
}

/** The provider's options asking what `request` says (`FEATURES`), the same streamed or not. */
function optionsOf(request) {
  if (!request.reasoning) return {};
  return {providerOptions: {bedrock: {reasoningConfig: {type: 'enabled',
    budgetTokens: request.reasoning.budget_tokens}}}};
}

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/amazon-bedrock'),
  (wire, baseUrl, request) => streamOutcome(__dirname, modelOf(baseUrl), request,
    optionsOf(request)),
  {features: FEATURES, whole: {'bedrock-converse': (wire, baseUrl, request) =>
    wholeOutcome(__dirname, modelOf(baseUrl), request, optionsOf(request))}});
