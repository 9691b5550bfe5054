"""langchain-anthropic: a tool call prefilled in `message_start` is lost when streamed.

With programmatic tool calling (beta advanced-tool-use-2025-11-20, the code execution tool,
a tool with `allowed_callers`), Anthropic's follow-up stream is `message_start` whose message
already holds the `tool_use`, then `message_stop` (the bytes below are Anthropic's, recorded
in vercel/ai's anthropic-programmatic-tool-calling.1.chunks.txt, lines 168-169). The same
answer not streamed (`.invoke()`) gives the call; `.stream()` gives none. Exit 1 while so.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from langchain_anthropic import ChatAnthropic

MESSAGE = {"model": "claude-sonnet-4-5-20250929", "id": "msg_01KSVw3xmXbMNJPNMt46BC5W", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_015dGLMbwBKv1ZRQr6KdJzeH", "name": "rollDie", "input": {"player": "player2"}, "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK"}}], "container": {"id": "container_011CWHPPTDTn1XufeRB9uHeH", "expires_at": "2025-12-20T05:33:37.969567Z"}, "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0, "server_tool_use": {"web_search_requests": 0}}}
STREAM = (b"event: message_start\ndata: " + json.dumps({"type": "message_start", "message": MESSAGE}).encode()
          + b'\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')


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
model = model.bind_tools([
    {"type": "code_execution_20250825", "name": "code_execution"},
    {"name": "rollDie", "description": "Roll a die for a player.", "allowed_callers": ["code_execution_20250825"],
     "input_schema": {"type": "object", "properties": {"player": {"type": "string"}}}}])

whole = model.invoke("Play a dice game between player1 and player2.")
summed = None
for chunk in model.stream("Play a dice game between player1 and player2."):
    summed = chunk if summed is None else summed + chunk
print("invoke() tool_calls:", [c["name"] for c in whole.tool_calls])
print("stream() tool_calls:", [c["name"] for c in summed.tool_calls])
if [c["name"] for c in summed.tool_calls] != ["rollDie"]:
    print("BUG: the streamed message lost the call that message_start carried")
    raise SystemExit(1)
print("ok: the streamed message holds the call")
