"""llama-index-llms-google-genai: a Gemini answer that ends with finishReason
MALFORMED_FUNCTION_CALL (no content parts), or a prompt blocked with promptFeedback (no
candidates), is an empty success from `stream_chat()`: its generator skips every chunk
without parts, so `chat_from_gemini_response` never checks it. `chat()` on the same answer
raises. Exit 1 while the bug is there."""
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.genai import types
from llama_index.core.llms import ChatMessage
from llama_index.llms.google_genai import GoogleGenAI

STREAMS = {  # the saved bodies
    "malformed": b'data: {"candidates":[{"content":{"role":"model"},"finishReason":'
                 b'"MALFORMED_FUNCTION_CALL","index":0,"finishMessage":"Malformed function call: '
                 b'get_weather({\\"city\\": )"}],"usageMetadata":{"promptTokenCount":10,'
                 b'"candidatesTokenCount":1,"totalTokenCount":11,"promptTokensDetails":[{"modality":'
                 b'"TEXT","tokenCount":10}]},"modelVersion":"gemini-2.0-flash","responseId":'
                 b'"AAAAAAAAAAAAAAAAAAAAAA"}\n\n',
    "blocked": b'data: {"promptFeedback":{"blockReason":"SAFETY"},"modelVersion":"gemini-2.0-flash",'
               b'"responseId":"AAAAAAAAAAAAAAAAAAAAAA","usageMetadata":{}}\n\n',
}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        stream = STREAMS[self.path.split("/")[1]]
        streamed = ":streamGenerateContent" in self.path
        body = stream if streamed else stream[len(b"data: "):].strip()  # the whole twin
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
prompt = [ChatMessage(role="user", content="Weather in Paris?")]
failed = False
for name in STREAMS:
    llm = GoogleGenAI(model="gemini-2.0-flash", api_key="x", max_retries=0, max_tokens=1024,
                      context_window=1048576, http_options=types.HttpOptions(
                          base_url=f"http://127.0.0.1:{server.server_port}/{name}/"))
    outcomes = []
    for call in (llm.chat, lambda p: list(llm.stream_chat(p))):
        try:
            outcomes.append(f"returned {call(prompt)!r}")
        except Exception as exc:
            outcomes.append(f"raised {type(exc).__name__}: {exc}")
    print(f"{name}: chat() {outcomes[0]}\n{name}: stream_chat() {outcomes[1]}")
    failed |= outcomes[1].startswith("returned")
print("expected: stream_chat() to raise as chat() does")
raise SystemExit(1 if failed else 0)
