"""The local provider server: real HTTP on 127.0.0.1, one base URL per case.

No mock of any client's HTTP stack: a socket works with every client in every language.
Each case lives under `http://127.0.0.1:PORT/case/<id>/`; a POST to any path below it gets
the case's answer: the status, the provider's framing and content type, the body written
piece by piece (chunked transfer encoding, TCP_NODELAY, one flush per piece) so the client
really reads split pieces. A non-streamed request gets the case's stream=false body (its
*whole twin*) instead: on OpenAI's and Anthropic's wires one whose JSON does not say
`"stream": true`, on Ollama's one that says `"stream": false`, on Gemini a POST to
`...:generateContent`, on Bedrock one to `/converse`. Every connection is closed after one answer, so closing the server joins
every thread it started.

A case added with the request it needs (`wires.case_request`) checks each request it gets:
one that does not ask for what the case holds (a tool it calls, `n`, include_usage,
thinking, a beta) is answered HTTP 400 naming what it lacks, and `mismatch(base_url)` says
it, so that the runner reports the harness's error, not the library's.
"""
from __future__ import annotations

import errno
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcs_conformance.wires import json_text, request_mismatch
from mcs_conformance.clients._served import Served

__all__ = ["ProviderServer"]

HOST = "127.0.0.1"
IDLE_SECONDS = 10.0  # a connection that sends nothing for this long is dropped


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_SECONDS
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the kit reports
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.close_connection = True
        request = self._request_json()
        served = self._served()
        if served is None:
            return
        wrong = self._wrong_request(served, request)
        if wrong is not None:
            self._send_json(400, {"error": {"message": f"mcs-conformance: {wrong}",
                                            "type": "mcs_request_mismatch"}})
        elif served.status == 200 and self._wants_whole(served.wire, request):
            self._send_whole_twin(served)
        elif served.status != 200:
            self._send_whole(served.status, served.content_type, served.body)
        else:
            self._stream(served)

    def _wants_whole(self, wire: str, request: Any) -> bool:
        """A non-streamed request: Gemini's `:generateContent` path (its streaming twin is
        `:streamGenerateContent`), Converse's `/converse` (its twin is `/converse-stream`);
        else by the JSON's `stream`, whose default is false on OpenAI's and Anthropic's
        APIs and true on Ollama's."""
        path = self.path.split("?")[0]
        if wire == "gemini":
            return path.endswith(":generateContent")
        if wire == "bedrock-converse":
            return path.endswith("/converse")
        asked = request.get("stream") if isinstance(request, dict) else None
        return asked is False if wire == "ollama-chat" else asked is not True

    def _send_whole_twin(self, served: Served) -> None:
        if served.whole is None:  # no documented whole answer for this case
            self._send_json(501, {"error": {"message": "mcs-conformance: this case has no "
                                            "stream=false answer", "type": "mcs_no_twin"}})
        else:
            self._send_json(served.whole_status, served.whole)

    def do_GET(self) -> None:
        """What a case serves, for a human pointing a browser or curl at it."""
        self.close_connection = True
        served = self._served()
        if served is not None:
            self._send_json(200, served.record())

    def _case_id(self) -> str | None:
        parts = self.path.split("?")[0].strip("/").split("/")
        return parts[1] if len(parts) >= 2 and parts[0] == "case" else None

    def _wrong_request(self, served: Served, request: Any) -> str | None:
        """What the request lacks that the case needs (None: no check, or nothing); the
        first such answer of a case is kept for `ProviderServer.mismatch`."""
        case_id = self._case_id()
        needed = self.server.needs.get(case_id)
        if needed is None:
            return None
        wrong = request_mismatch(served.wire, needed, request, self.headers,
                                 stream=not self._wants_whole(served.wire, request))
        if wrong is not None:
            self.server.mismatches.setdefault(case_id, wrong)
        return wrong

    def _served(self) -> Served | None:
        served = self.server.cases.get(self._case_id())
        if served is None:
            self._send_json(404, {"error": {"message": f"no case at {self.path}; cases live "
                                            "under /case/<id>/", "type": "not_found"}})
        return served

    def _request_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _send_json(self, status: int, value: Any) -> None:
        self._send_whole(status, "application/json", json_text(value).encode("utf-8"))

    def _send_whole(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _stream(self, served: Served) -> None:
        self.send_response(200)
        self.send_header("Content-Type", served.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        if served.complete:  # the connection closes after the whole answer, and says so
            self.send_header("Connection", "close")
        # A drop says nothing beforehand, as a real server's dropped connection never does:
        # told `Connection: close`, Node's fetch reads a drop inside a chunked body as a clean
        # end, which would be a finding against a library that never saw the drop.
        self.end_headers()
        self.wfile.flush()
        try:
            for piece in served.pieces:
                if piece:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
            if served.complete:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            else:  # a network drop: the body never ends
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: its choice
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # closing joins every handler thread
    block_on_close = True
    allow_reuse_address = False

    def __init__(self, port: int):
        super().__init__((HOST, port), _Handler)
        self.cases: dict[str, Served] = {}
        self.needs: dict[str, dict] = {}  # case id -> the request it needs (checked)
        self.mismatches: dict[str, str] = {}  # case id -> what its first wrong request lacked


class ProviderServer:
    """The server: `add(served)` gives the case's base URL; use it as a context manager, or
    `close()` it (joins its threads, closes its sockets).

    `port` 0 picks a free port; a port in use is replaced by a free one (`port` says which).
    """

    def __init__(self, port: int = 0):
        try:
            self._server = _Server(port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or port == 0:
                raise
            self._server = _Server(0)
        self.port: int = self._server.server_address[1]
        self._next = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"mcs-provider-server:{self.port}", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def add(self, served: Served, case_id: str | None = None, *,
            request: dict | None = None) -> str:
        """Serve `served` under a new case id (or `case_id`); returns its base URL. With
        `request` (a `wires.case_request`), each request is checked against it."""
        with self._lock:
            if case_id is None:
                self._next += 1
                case_id = str(self._next)
            self._server.cases[case_id] = served
            self._server.mismatches.pop(case_id, None)
            if request is None:
                self._server.needs.pop(case_id, None)
            else:
                self._server.needs[case_id] = request
        return f"{self.url}/case/{case_id}/"

    def mismatch(self, base_url: str) -> str | None:
        """What the first request to the case at `base_url` lacked that it needs, if any."""
        with self._lock:
            return self._server.mismatches.get(self._id_of(base_url))

    @staticmethod
    def _id_of(base_url: str) -> str:
        return base_url.rstrip("/").rsplit("/", 1)[-1]

    def discard(self, base_url: str) -> None:
        """Stop serving the case at `base_url` (a finished example)."""
        case_id = self._id_of(base_url)
        with self._lock:
            self._server.cases.pop(case_id, None)
            self._server.needs.pop(case_id, None)
            self._server.mismatches.pop(case_id, None)

    def close(self) -> None:
        """Stop serving, join every thread and close the listening socket."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> "ProviderServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
