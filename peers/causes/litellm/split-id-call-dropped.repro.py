"""A streamed tool call whose first delta holds only `index`, `id` and `type` (the name and
arguments follow in later deltas: vLLM's chunk shape) is dropped by
litellm.completion(stream=True) + stream_chunk_builder: no call at all, where
completion(stream=False) returns it for the same answer.

litellm==1.110.2. Exit 1 while the bug is there."""
import http.server
import os
import sys
import threading

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

HEAD = b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,'
TAIL = b'},"logprobs":null,"finish_reason":null}]}\n\n'
BODY = (
    HEAD + b'"delta":{"role":"assistant","content":null' + TAIL
    + HEAD + b'"delta":{"tool_calls":[{"index":0,"id":"call_000000000000000000000000","type":"function"}]' + TAIL
    + HEAD + b'"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather"}}]' + TAIL
    + HEAD + b'"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]' + TAIL
    + HEAD + b'"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}\n\n'
    b'data: [DONE]\n\n'
)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # the saved answer, then a clean end of the body
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
chunks = list(litellm.completion(
    model="openai/gpt-4o", messages=MESSAGES, tools=TOOLS, api_key="sk-test", max_retries=0,
    stream=True, api_base=f"http://127.0.0.1:{server.server_port}/v1"))
calls = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message.tool_calls or []
got = [(c.id, c.function.name, c.function.arguments) for c in calls]
expected = [("call_000000000000000000000000", "get_weather", "{}")]
print("got:     ", got)
print("expected:", expected, "(as completion(stream=False) returns for the same answer)")
sys.exit(0 if got == expected else 1)
