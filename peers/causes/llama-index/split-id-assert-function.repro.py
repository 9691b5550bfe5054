"""llama-index-llms-openai: a tool call whose first delta holds only `id` and `type` (vLLM
sends the name in the next delta) ends `stream_chat_with_tools()` in a bare AssertionError
(`update_tool_calls`: `assert t.function is not None`); `chat_with_tools()` on the same
answer returns the call. Exit 1 while the bug is there."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI

HEAD = ('{"id":"chatcmpl-0","object":"chat.completion.chunk","created":1700000000,'
        '"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":')
DELTAS = ['{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}',
          '{"tool_calls":[{"index":0,"id":"call_0","type":"function"}]},"logprobs":null,'
          '"finish_reason":null}]}',
          '{"tool_calls":[{"index":0,"function":{"name":"get_weather"}}]},"logprobs":null,'
          '"finish_reason":null}]}',
          '{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"logprobs":null,'
          '"finish_reason":null}]}',
          '{},"logprobs":null,"finish_reason":"tool_calls"}]}']
STREAM = "".join(f"data: {HEAD}{d}\n\n" for d in DELTAS).encode() + b"data: [DONE]\n\n"
WHOLE = json.dumps({"id": "chatcmpl-0", "object": "chat.completion", "created": 1700000000,
                    "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": [{"id": "call_0",
                    "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}}]}).encode()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        streamed = json.loads(self.rfile.read(int(self.headers["Content-Length"]))).get("stream")
        body = STREAM if streamed else WHOLE
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
llm = OpenAI(model="gpt-4o", api_key="sk-x", api_base=f"http://127.0.0.1:{server.server_port}/v1",
             max_retries=0)
tool = FunctionTool.from_defaults(fn=lambda: None, name="get_weather", description="Weather.")
prompt = [ChatMessage(role="user", content="Weather in Paris?")]

whole = llm.chat_with_tools([tool], chat_history=prompt)
print("chat_with_tools():", [t.tool_name for t in llm.get_tool_calls_from_response(whole)])
try:
    *_, last = llm.stream_chat_with_tools([tool], chat_history=prompt)
    got = [t.tool_name for t in llm.get_tool_calls_from_response(last)]
except AssertionError as exc:
    got = f"AssertionError({exc!r})"
print("stream_chat_with_tools():", got, "- expected ['get_weather']")
raise SystemExit(0 if got == ["get_weather"] else 1)
