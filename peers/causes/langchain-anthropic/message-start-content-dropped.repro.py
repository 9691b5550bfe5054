"""langchain-anthropic: a tool call prefilled in `message_start` is lost when streamed.

A follow-up stream after programmatic tool calling (anthropic-beta advanced-tool-use) is
`message_start` whose message already holds the `tool_use`, then `message_stop`. The same
answer not streamed (`.invoke()`) gives the call; `.stream()` gives none.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from langchain_anthropic import ChatAnthropic

MESSAGE = {"id": "msg_010000000000000000000000", "type": "message", "role": "assistant",
           "model": "claude-sonnet-4-5-20250929",
           "content": [{"type": "tool_use", "id": "toolu_010000000000000000000000",
                        "name": "get_weather", "input": {}}],
           "stop_reason": "tool_use", "stop_sequence": None,
           "usage": {"input_tokens": 0, "output_tokens": 1}}
STREAM = (b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_010000000000000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_010000000000000000000000","name":"get_weather","input":{}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":1}}}\n\n'
          b'event: message_stop\ndata: {"type":"message_stop"}\n\n')


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        streamed = request.get("stream") is True
        body = STREAM if streamed else json.dumps(MESSAGE).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream" if streamed else "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-test", max_retries=0,
                      base_url=f"http://127.0.0.1:{server.server_port}",
                      betas=["advanced-tool-use-2025-11-20"])
model = model.bind_tools([{"type": "function", "function": {
    "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}}}])

whole = model.invoke("What is the weather in Paris?")
summed = None
for chunk in model.stream("What is the weather in Paris?"):
    summed = chunk if summed is None else summed + chunk
print("invoke() tool_calls:", [c["name"] for c in whole.tool_calls])
print("stream() tool_calls:", [c["name"] for c in summed.tool_calls])
if [c["name"] for c in summed.tool_calls] != ["get_weather"]:
    print("BUG: the streamed message lost the call that message_start carried")
    raise SystemExit(1)
print("ok: the streamed message holds the call")
