"""A streamed `delta.refusal` is dropped by litellm.completion(stream=True): the rebuilt
message has no refusal, where completion(stream=False) returns it for the same answer.

litellm==1.110.2. Exit 1 while the bug is there."""
import http.server
import os
import sys
import threading

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

HEAD = b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,'
BODY = (
    HEAD + b'"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}\n\n'
    + HEAD + b'"delta":{"refusal":"I\'m sorry, I can\'t help with that."},"logprobs":null,"finish_reason":null}]}\n\n'
    + HEAD + b'"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n'
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
chunks = list(litellm.completion(
    model="openai/gpt-4o", messages=MESSAGES, api_key="sk-test", max_retries=0, stream=True,
    api_base=f"http://127.0.0.1:{server.server_port}/v1"))
message = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message
got = getattr(message, "refusal", None)
expected = "I'm sorry, I can't help with that."
print("got refusal:     ", repr(got))
print("expected refusal:", repr(expected), "(as completion(stream=False) returns for the same answer)")
sys.exit(0 if got == expected else 1)
