"""An Anthropic `error` event (overloaded_error) that follows `message_delta` is never read
by litellm.completion(stream=True): the stream ends as a success. litellm's Anthropic
chunk parser raises AnthropicError for an `error` event, and completion(stream=False)
raises for the same failed answer.

litellm==1.110.2. Exit 1 while the bug is there."""
import http.server
import os
import sys
import threading

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

BODY = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_010000000000000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"content":[],"usage":{"input_tokens":0,"output_tokens":1}}}\n\n'
    b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}\n\n'
    b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
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
try:
    chunks = list(litellm.completion(
        model="anthropic/claude-sonnet-4-5", api_key="sk-test", max_retries=0, stream=True,
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        api_base=f"http://127.0.0.1:{server.server_port}"))
    got = f"success ({len(chunks)} chunks)"
except Exception as exc:  # what the caller should see: the provider's error
    got = f"{type(exc).__name__}: {exc}"
print("got:     ", got[:200])
print("expected: an error carrying 'Overloaded' (as completion(stream=False) raises for it)")
sys.exit(0 if "Overloaded" in got else 1)
