"""A role repeated in a later delta (OpenRouter, Zhipu) is concatenated by chat.completions.stream():
the final message's role is 'assistantassistant'.

openai==3.57.0. Exit 1 while the bug is there."""
import http.server
import sys
import threading

import openai

BODY = (
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":"stop"}]}\n\n'
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
expected = "role 'assistant'"
with client.chat.completions.stream(model="gpt-4o", messages=[
        {"role": "user", "content": "Hello"}]) as stream:
    got = f"role {stream.get_final_completion().choices[0].message.role!r}"
print("got:     ", got)  # the bug: the role of every delta is concatenated
print("expected:", expected, "(as chat.completions.create() returns for the same answer)")
sys.exit(0 if got == expected else 1)
