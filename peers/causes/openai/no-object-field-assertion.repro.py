"""Chunks without `object` (Zhipu GLM's streams) are all skipped by chat.completions.stream(),
and get_final_completion() fails on a bare AssertionError.

openai==3.57.0. Exit 1 while the bug is there."""
import http.server
import sys
import threading

import openai

BODY = (
    b'data: {"id":"chatcmpl-00000000000000000000000000000","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n'
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
client = openai.OpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.server_port}/v1",
                       max_retries=0)
expected = "the completion, content ''"
try:
    with client.chat.completions.stream(model="glm-4-plus", messages=[
            {"role": "user", "content": "Hello"}]) as stream:
        message = stream.get_final_completion().choices[0].message
    got = f"the completion, content {message.content!r}"
except Exception as exc:  # the bug: every chunk lacks "object", all are skipped
    got = f"{type(exc).__name__}: {exc}"
print("got:     ", got)
print("expected:", expected, "(as chat.completions.create() returns for the same answer)")
sys.exit(0 if got == expected else 1)
