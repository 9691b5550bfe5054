"""A tool-call delta with id and type but no `function` (vLLM) ends ChatOpenAI.stream() in an AttributeError.

langchain-openai==1.8.1 (langchain-core 1.8.3, openai 3.57.0). Exit 1 while the bug is there."""
import http.server
import sys
import threading

from langchain_openai import ChatOpenAI

BODY = (
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_000000000000000000000000","type":"function"}]},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}\n\n'
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
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
model = ChatOpenAI(model="gpt-4o", api_key="sk-test", max_retries=0,
                   base_url=f"http://127.0.0.1:{server.server_port}/v1").bind_tools([TOOL])
expected = "1 call: get_weather {}"
try:
    total = None
    for chunk in model.stream("What is the weather in Paris?"):  # summed as LangChain's docs show
        total = chunk if total is None else total + chunk
    got = f"{len(total.tool_calls)} call: " + ", ".join(
        f"{c['name']} {c['args']}" for c in total.tool_calls)
except Exception as exc:  # the bug: a delta without "function" crashes the chunk conversion
    got = f"{type(exc).__name__}: {exc}"
print("got:     ", got)
print("expected:", expected, "(as .invoke() returns for the same answer)")
sys.exit(0 if got == expected else 1)
