// A tool call streamed without `index` (Mistral's streams) is silently missing from
// client.chat.completions.stream(...).finalChatCompletion().
//
// openai (npm) 6.49.0. Run: NODE_PATH=<dir>/node_modules node <this file>. Exit 1 while the bug is there.
import http from 'node:http';
import {createRequire} from 'node:module';

const require = createRequire(import.meta.url);  // NODE_PATH=<peer>/node_modules
const OpenAI = require('openai');

const BODY = [
  "data: {\"id\":\"chatcmpl-00000000000000000000000000000\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
  "data: {\"id\":\"chatcmpl-00000000000000000000000000000\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"call_000000000000000000000000\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
  "data: {\"id\":\"chatcmpl-00000000000000000000000000000\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]}\n\n",
  "data: [DONE]\n\n",
].join('');

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {  // the saved answer, then a clean end of the body
    response.writeHead(200, {'content-type': 'text/event-stream'});
    response.end(BODY);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = new OpenAI({apiKey: 'sk-test', maxRetries: 0,
  baseURL: `http://127.0.0.1:${server.address().port}/v1`});
const TOOLS = [{type: 'function', function: {name: 'get_weather', parameters: {type: 'object'}}}];
const expected = '1 call: get_weather {}';
let got;
try {
  const completion = await client.chat.completions.stream({model: 'gpt-4o', tools: TOOLS,
    messages: [{role: 'user', content: 'What is the weather in Paris?'}]}).finalChatCompletion();
  const calls = completion.choices[0].message.tool_calls ?? [];  // the bug: a delta without
  // `index` is stored on tool_calls["undefined"], which the final array does not hold
  got = `${calls.length} call: ` + calls.map((c) => `${c.function.name} ${c.function.arguments}`).join(', ');
} catch (err) {
  got = `${err.name}: ${err.message}`;
}
server.close();
console.log('got:     ', got);
console.log('expected:', expected, '(as chat.completions.create() returns for the same answer)');
process.exit(got === expected ? 0 : 1);
