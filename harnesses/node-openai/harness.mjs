#!/usr/bin/env node
// mcs-conformance harness (protocol v1) for the official `openai` npm package.
//
// Each case is consumed as the package's users do: `client.chat.completions.stream()`,
// then `await stream.finalChatCompletion()`. One JSON line in on stdin, one JSON line out
// on stdout; logs go to stderr. Run by the kit:
//   mcs-conformance certify --harness "node harnesses/node-openai/harness.mjs" --wire openai-chat
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { VERSION } from 'openai/version';

const IMPLEMENTATION = {
  name: 'openai',
  language: 'javascript',
  version: VERSION, // the installed package's own version, not the one asked for
  homepage: 'https://github.com/openai/openai-node',
  wires: ['openai-chat'],
};

// What a self-hosted OpenAI-compatible server's users write: the base URL with /v1 appended.
function clientFor(baseUrl) {
  return new OpenAI({ apiKey: 'sk-mcs', baseURL: baseUrl.replace(/\/$/, '') + '/v1', maxRetries: 0 });
}

// Arguments that are a JSON object travel as their own JSON text, spliced into the reply
// line: parsing them here would turn 1.0 into 1 and round big integers (JS numbers), so
// the kit would see numbers the library never produced. Anything else is the raw string.
const RAW = `mcs-raw-${process.pid}-${Date.now()}-`; // a marker no generated text holds
const raws = [];

function argumentsOf(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  raws.push(text.replace(/[\r\n]/g, ' ')); // JSON strings hold no raw newline: only whitespace goes
  return RAW + (raws.length - 1);
}

function callOf(toolCall) {
  if (toolCall.type === 'custom') {
    return { name: toolCall.custom.name, arguments: toolCall.custom.input, id: toolCall.id ?? null };
  }
  return { name: toolCall.function.name, arguments: argumentsOf(toolCall.function.arguments), id: toolCall.id ?? null };
}

async function run(baseUrl) {
  try {
    const stream = clientFor(baseUrl).chat.completions.stream({
      model: 'mcs',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message ?? null;
    return {
      calls: (message?.tool_calls ?? []).map(callOf),
      text: message?.content ?? '',
      message,
      error: null,
    };
  } catch (error) {
    // never crash on the library: the kit reads the error from the outcome
    const name = error?.constructor?.name ?? 'Error';
    return { calls: [], text: '', message: null, error: `${name}: ${error?.message ?? String(error)}` };
  }
}

function say(object) {
  const line = JSON.stringify(object).replace(
    new RegExp(`"${RAW}(\\d+)"`, 'g'), (_, i) => raws[Number(i)]);
  raws.length = 0;
  process.stdout.write(line + '\n');
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const message = JSON.parse(line);
  if (message.cmd === 'start') {
    say({ ready: true, version: 1, implementation: IMPLEMENTATION });
  } else if (message.cmd === 'run') {
    say({ seq: message.seq, outcome: await run(message.base_url) });
  } else if (message.cmd === 'stop') {
    break;
  }
}
process.exit(0);
