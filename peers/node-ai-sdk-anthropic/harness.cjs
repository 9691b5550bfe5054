'use strict';
/**
 * node-ai-sdk-anthropic: the Vercel AI SDK's `streamText` with `@ai-sdk/anthropic`'s
 * `createAnthropic({baseURL, apiKey})(id)`. The base URL gets `/v1`, as the provider's own
 * default has it.
 */
const {serve, joinUrl, requirePeer} = require('../node-protocol.cjs');
const {streamOutcome, versionOf} = require('../node-ai-sdk.cjs');

const {createAnthropic} = requirePeer(__dirname, '@ai-sdk/anthropic');

serve(__dirname, () => versionOf(__dirname, '@ai-sdk/anthropic'), (wire, baseUrl) =>
  streamOutcome(__dirname,
    createAnthropic({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs'})('mcs-model')));
