"""langchain-anthropic: a tool call prefilled in `message_start` is lost when streamed.

Programmatic tool calling (beta advanced-tool-use-2025-11-20, code execution, `allowed_callers`):
Claude's code called rollDie(player1); the client returns its result in the same container, and
Anthropic answers that follow-up (the only request this server answers) with `message_start`
already holding the code's next call, then `message_stop`: Anthropic's bytes, recorded in vercel/ai's
anthropic-programmatic-tool-calling.1.chunks.txt (lines 1-167 end in rollDie(player1), 168-169 are
this answer). `.invoke()` gives the call; `.stream()` gives none. Exit 1 while so.
"""
import json, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

CONTAINER, RUN, FIRST = "container_011CWHPPTDTn1XufeRB9uHeH", "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK", "toolu_019jKkXz4jAdwHweHBw92CVY"
CALLER = {"type": "code_execution_20250825", "tool_id": RUN}
MESSAGE = {"model": "claude-sonnet-4-5-20250929", "id": "msg_01KSVw3xmXbMNJPNMt46BC5W", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_015dGLMbwBKv1ZRQr6KdJzeH", "name": "rollDie", "input": {"player": "player2"}, "caller": CALLER}], "container": {"id": CONTAINER, "expires_at": "2025-12-20T05:33:37.969567Z"}, "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0, "server_tool_use": {"web_search_requests": 0}}}
STREAM = (b"event: message_start\ndata: " + json.dumps({"type": "message_start", "message": MESSAGE}).encode()
          + b'\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')
REFUSAL = b'{"type":"error","error":{"type":"invalid_request_error","message":"not the follow-up"}}'


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        last = request["messages"][-1]["content"]  # the follow-up: the first call's result, same container
        follow_up = isinstance(last, list) and last[0].get("tool_use_id") == FIRST and request.get("container") == CONTAINER
        streamed = follow_up and request.get("stream") is True
        body = STREAM if streamed else json.dumps(MESSAGE).encode() if follow_up else REFUSAL
        self.send_response(200 if follow_up else 400)
        self.send_header("content-type", "text/event-stream" if streamed else "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-test", max_retries=0, container=CONTAINER,
                      base_url=f"http://127.0.0.1:{server.server_port}", betas=["advanced-tool-use-2025-11-20"])
model = model.bind_tools([{"type": "code_execution_20250825", "name": "code_execution"}, {
    "name": "rollDie", "description": "Roll a die for a player.", "allowed_callers": ["code_execution_20250825"],
    "input_schema": {"type": "object", "properties": {"player": {"type": "string"}}}}])
history = [HumanMessage("Play a dice game between player1 and player2."), AIMessage([
    {"type": "server_tool_use", "id": RUN, "name": "code_execution", "input": {"code": "await rollDie({'player': 'player1'})"}},
    {"type": "tool_use", "id": FIRST, "name": "rollDie", "input": {"player": "player1"}, "caller": CALLER}]),
    ToolMessage("4", tool_call_id=FIRST)]
whole, summed = model.invoke(history), None
for chunk in model.stream(history):
    summed = chunk if summed is None else summed + chunk
print("invoke() tool_calls:", [c["name"] for c in whole.tool_calls])
print("stream() tool_calls:", [c["name"] for c in summed.tool_calls])
if [c["name"] for c in summed.tool_calls] != ["rollDie"]:
    print("BUG: the streamed message lost the call that message_start carried")
    raise SystemExit(1)
print("ok: the streamed message holds the call")
