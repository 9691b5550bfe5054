'use strict';
/**
 * node-ai-sdk-amazon-bedrock: the Vercel AI SDK's `streamText` with `@ai-sdk/amazon-bedrock`'s
 * `createAmazonBedrock({baseURL, region, accessKeyId, secretAccessKey})(id)`. The base URL is
 * the case URL, as a user sets a custom endpoint (the model posts to
 * `<base>/model/<id>/converse-stream`), and the provider signs each request with SigV4 from
 * the dummy credentials.
 */
const {serve, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAmazonBedrock} = requirePeer(__dirname, '@ai-sdk/amazon-bedrock');

// No request feature on bedrock-converse.
const FEATURES = {'bedrock-converse': []};

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/amazon-bedrock'), (wire, baseUrl, request) => {
  return streamOutcome(__dirname, createAmazonBedrock({baseURL: baseUrl, region: 'us-east-1',
    accessKeyId: 'x', secretAccessKey: 'x'})('anthropic.claude-sonnet-4-20250514-v1:0'), request);
}, {features: FEATURES});
