"""ollama-python: a chat stream whose content holds U+0085 (NEL) raw dies with JSONDecodeError.

Ollama's server writes its NDJSON lines with Go's encoding/json, which leaves U+0085 raw
(JSON allows it). The client reads the stream with httpx's `Response.iter_lines()`, which
also splits lines at U+0085, so one line reaches `json.loads` in two halves.
`chat(stream=False)` reads the same answer. Exit 1 while the bug is there.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import ollama

STREAM = (b'{"model":"llama3.2","created_at":"2023-12-31T23:59:59.996470613Z","message":'
          b'{"role":"assistant","content":"\xc2\x85"},"done":false}\n'
          b'{"model":"llama3.2","created_at":"2024-01-01T00:00:00Z","done":true,'
          b'"done_reason":"stop","total_duration":1,"load_duration":1,"prompt_eval_count":1,'
          b'"prompt_eval_duration":1,"eval_count":1,"eval_duration":1,'
          b'"message":{"role":"assistant","content":""}}\n')
WHOLE = (b'{"model":"llama3.2","created_at":"2024-01-01T00:00:00Z","done":true,'
         b'"done_reason":"stop","message":{"role":"assistant","content":"\xc2\x85"}}')


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = STREAM if request.get("stream", True) else WHOLE
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
client = ollama.Client(host=f"http://127.0.0.1:{server.server_port}")
messages = [{"role": "user", "content": "Hi"}]

whole = client.chat(model="llama3.2", messages=messages, stream=False).message.content
try:
    streamed = "".join(part.message.content or ""
                       for part in client.chat(model="llama3.2", messages=messages, stream=True))
except json.JSONDecodeError as exc:
    streamed = f"JSONDecodeError: {exc}"
print(f"stream=False content: {whole!r}")
print(f"stream=True  content: {streamed!r}")
print("expected: the same content, '\\x85', from both")
raise SystemExit(0 if streamed == whole else 1)
