'use strict';
/**
 * node-openai: the `openai` npm package's stream helpers, as its README shows them.
 *
 * openai-chat: `client.chat.completions.stream(...)` then `finalChatCompletion()`;
 * openai-responses: `client.responses.stream(...)` then `finalResponse()`.
 * Without streaming (protocol v3's `whole`), the README's "Usage": `chat.completions.create(...)`
 * and `responses.create(...)` with the same request, the result read by the same mapping.
 * The base URL gets `/v1` appended, as for any self-hosted OpenAI-compatible server.
 */
const {serve, argumentsOf, joinUrl, plain, requirePeer} = require('../node-protocol.cjs');

const OpenAI = requirePeer(__dirname, 'openai');

const PROMPT = 'Call the tool.';
// Every feature is a documented parameter of `chat.completions.create()` / `.stream()` and
// `responses.create()` / `.stream()` (the package's ChatCompletionCreateParams and
// ResponseCreateParams types):
// openai-chat: `n`; `stream_options: {include_usage: true}` (streamed only: the API refuses
// it without `stream`); `max_completion_tokens`; `logprobs: true`; `web_search_options: {}`.
// openai-responses: `tools` takes every provider tool as the API writes it (the `Tool` union:
// CustomTool, ComputerUsePreviewTool, Tool.LocalShell, FunctionShellTool with a local or
// container environment, ApplyPatchTool, WebSearchTool, FileSearchTool,
// Tool.CodeInterpreter, Tool.ImageGeneration, Tool.Mcp, ToolSearchTool);
// `context_management: [{type: 'compaction'}]`; `reasoning: {summary}`;
// `include: ['code_interpreter_call.outputs']` (ResponseIncludable); `background: true`;
// `max_output_tokens`. None is left out.
const FEATURES = {
  'openai-chat': ['n', 'include_usage', 'max_tokens', 'logprobs', 'web_search'],
  'openai-responses': ['custom_tools', 'computer_use', 'local_shell', 'shell', 'hosted_shell',
    'apply_patch', 'web_search', 'file_search', 'code_interpreter', 'image_generation', 'mcp',
    'tool_search', 'compaction', 'reasoning_summary', 'include', 'background', 'max_tokens'],
};

/** The told tools and options as `chat.completions` parameters; `stream_options` only when
 * `stream`. */
function chatOptions(request, stream) {
  const options = {};
  if (request.tools.length) {
    options.tools = request.tools.map(({name, description, parameters}) =>
      ({type: 'function', function: {name, description, parameters}}));
  }
  if (request.n !== undefined) options.n = request.n;
  if (request.include_usage && stream) options.stream_options = {include_usage: true};
  if (request.max_tokens !== undefined) options.max_completion_tokens = request.max_tokens;
  if (request.logprobs) options.logprobs = true;
  if (request.web_search) options.web_search_options = {};
  return options;
}

function client(baseUrl) {
  // maxRetries 0: a retried request would fetch the same served body again.
  return new OpenAI({baseURL: joinUrl(baseUrl, 'v1'), apiKey: 'sk-mcs', maxRetries: 0});
}

/** The Chat message without what the helper adds over the wire's type (`ParsedChatCompletion`
 * adds `message.parsed` and `function.parsed_arguments`, null for tools not marked strict). */
function chatMessage(message) {
  const {parsed, ...rest} = message;
  if (Array.isArray(rest.tool_calls)) {
    rest.tool_calls = rest.tool_calls.map((call) => {
      if (!call.function) return call;
      const {parsed_arguments: parsedArguments, ...fn} = call.function;
      return {...call, function: fn};
    });
  }
  return plain(rest);
}

/** The body of one Chat Completions request (`stream`: for the stream helper). */
function chatBody(request, stream) {
  return {model: 'mcs-model', messages: [{role: 'user', content: PROMPT}],
    ...chatOptions(request, stream)};
}

async function chat(baseUrl, request) {
  const stream = client(baseUrl).chat.completions.stream(chatBody(request, true));
  return chatOutcome(await stream.finalChatCompletion());
}

async function chatWhole(baseUrl, request) {
  return chatOutcome(await client(baseUrl).chat.completions.create(chatBody(request, false)));
}

/** A ChatCompletion (streamed: the helper's final one) as an outcome. */
function chatOutcome(completion) {
  const message = completion.choices[0].message;
  const calls = (message.tool_calls || []).map((call) => call.type === 'custom'
    ? {name: call.custom.name, arguments: call.custom.input, id: call.id ?? null}
    : {name: call.function.name, arguments: argumentsOf(call.function.arguments),
      id: call.id ?? null});
  return {calls, text: typeof message.content === 'string' ? message.content : '',
    message: chatMessage(message), error: null};
}

// Responses items the client runs, as the kit's wire names them (CALL_KINDS); the rest
// (hosted tools, MCP, reasoning, messages) ran on OpenAI's side or are not calls.
const OTHER_KINDS = {computer_call: 'computer', local_shell_call: 'local_shell',
  shell_call: 'shell', apply_patch_call: 'apply_patch'};
const BOOKKEEPING = new Set(['type', 'id', 'call_id', 'status']);

function responsesCalls(output) {
  const answered = new Set(output.filter((item) => item.type.endsWith('_output'))
    .map((item) => item.call_id));
  const calls = [];
  for (const item of output) {
    if (answered.has(item.call_id) || 'environment' in item) continue;
    if (item.type === 'function_call') {
      calls.push({name: item.name, arguments: argumentsOf(item.arguments), id: item.call_id});
    } else if (item.type === 'custom_tool_call') {
      calls.push({name: item.name, arguments: item.input, id: item.call_id});
    } else if (item.type in OTHER_KINDS) {
      const payload = Object.fromEntries(Object.entries(item)
        .filter(([key]) => !BOOKKEEPING.has(key)));
      calls.push({name: OTHER_KINDS[item.type], arguments: plain(payload), id: item.call_id});
    }
  }
  return calls;
}

/** The Response without what the helper adds over the wire's type (`ParsedResponse` adds
 * `output_text`, `output_parsed`, `parsed` on each content part, `parsed_arguments`). */
function responseMessage(response) {
  const {output_text: outputText, output_parsed: outputParsed, ...rest} = response;
  rest.output = rest.output.map((item) => {
    const {parsed_arguments: parsedArguments, ...kept} = item;
    if (item.type === 'message' && Array.isArray(item.content)) {
      kept.content = item.content.map(({parsed, ...part}) => part);
    }
    return item.type === 'function_call' || item.type === 'message' ? kept : item;
  });
  return plain(rest);
}

/** The body of one Responses request, streamed or not: the function tools, the provider's
 * own tools as told (written as the `Tool` union writes them), and the options. */
function responsesBody(request) {
  const tools = [...request.tools.map(({name, description, parameters}) =>
    ({type: 'function', name, description, parameters, strict: false})),
  ...(request.native_tools || [])];
  const body = {model: 'mcs-model', input: PROMPT, ...(tools.length ? {tools} : {})};
  if (request.reasoning_summary !== undefined) body.reasoning = {summary: request.reasoning_summary};
  for (const key of ['include', 'background', 'context_management']) {
    if (request[key] !== undefined) body[key] = request[key];
  }
  if (request.max_tokens !== undefined) body.max_output_tokens = request.max_tokens;
  return body;
}

async function responses(baseUrl, request) {
  return responsesOutcome(await client(baseUrl).responses.stream(responsesBody(request))
    .finalResponse());
}

async function responsesWhole(baseUrl, request) {
  return responsesOutcome(await client(baseUrl).responses.create(responsesBody(request)));
}

/** A Response (streamed: the helper's final one) as an outcome. */
function responsesOutcome(response) {
  const output = response.output || [];
  const text = output.filter((item) => item.type === 'message')
    .flatMap((item) => item.content || [])
    .filter((part) => part.type === 'output_text').map((part) => part.text).join('');
  return {calls: responsesCalls(output), text, message: responseMessage(response), error: null};
}

// Both wires have a documented non-streaming call (the README's "Usage").
const WHOLE = {
  'openai-chat': (wire, baseUrl, request) => chatWhole(baseUrl, request),
  'openai-responses': (wire, baseUrl, request) => responsesWhole(baseUrl, request),
};

serve(__dirname, 'openai',
  (wire, baseUrl, request) => (wire === 'openai-chat' ? chat : responses)(baseUrl, request),
  {features: FEATURES, whole: WHOLE});
