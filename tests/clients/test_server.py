"""The local provider server: real HTTP, the wire's framing, pieces flushed one by one, and
nothing left behind."""
from __future__ import annotations

import http.client
import json
import socket
import threading
import io

import pytest

from mcs_conformance.clients.serve import draw_served, serve
from mcs_conformance.clients.served import Served, served_error, split_at
from mcs_conformance.clients.server import ProviderServer
from mcs_conformance.framing import frame_body
from mcs_conformance.wires import Case


def _case(wire: str, chunks: list, message: dict | None = None) -> Case:
    return Case(wire=wire, message=message or {"role": "assistant"}, chunks=chunks,
                done_at=len(chunks) - 1, calls=[], text="")


def _post(url: str, body: dict | None = None) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    host, port = url.split("/")[2].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    path = "/" + url.split("/", 3)[3] + "v1/chat/completions"
    connection.request("POST", path, json.dumps(body or {"stream": True}).encode(),
                       {"Content-Type": "application/json"})
    return connection, connection.getresponse()


def _served(wire: str, chunks: list, pieces: tuple | None = None, **more) -> Served:
    body = frame_body(wire, chunks)
    return Served(wire=wire, status=200, content_type="text/event-stream; charset=utf-8",
                  pieces=pieces or (body,), whole={"whole": True}, **more)


def test_each_piece_arrives_on_its_own_and_nothing_is_left_behind():
    threads = threading.active_count()
    body = "data: {\"a\": \"é\"}\r\n\r\ndata: [DONE]\r\n\r\n".encode()
    cuts = [3, 5, body.index("é".encode()) + 1, body.index(b"\r") + 1]
    pieces = split_at(body, cuts)
    with ProviderServer() as server:
        url = server.add(_served("openai-chat", [], pieces=pieces))
        connection, response = _post(url)
        read = []
        while piece := response.read1(65536):
            read.append(piece)
        connection.close()
        port = server.port
    assert read == list(pieces) and len(read) == 5  # cut inside data:, é, and \r\n
    assert response.getheader("Content-Type").startswith("text/event-stream")
    assert threading.active_count() == threads
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


@pytest.mark.parametrize("wire,start,end", [
    ("openai-chat", b"data: {", b"data: [DONE]\n\n"),
    ("anthropic-messages", b"event: message_stop\ndata: {", b"}\n\n"),
    ("openai-responses", b"event: response.completed\ndata: {", b"}\n\n"),
    ("ollama-chat", b"{", b"}\n"),
])
def test_bodies_have_their_providers_framing(wire, start, end):
    chunk = {"ollama-chat": {"done": True}, "anthropic-messages": {"type": "message_stop"},
             "openai-responses": {"type": "response.completed"}}.get(wire, {"choices": []})
    body = frame_body(wire, [chunk])
    assert body.startswith(start) and body.endswith(end)


def test_stream_false_gets_the_whole_body_and_errors_their_json():
    with ProviderServer() as server:
        url = server.add(_served("openai-chat", [{"choices": []}]))
        connection, response = _post(url, {"stream": False})
        assert response.status == 200 and json.loads(response.read()) == {"whole": True}
        connection.close()
        failed = server.add(served_error("anthropic-messages", 529, {"type": "error", "error": {
            "type": "overloaded_error", "message": "Overloaded"}}))
        connection, response = _post(failed)
        assert response.status == 529
        assert json.loads(response.read())["error"]["message"] == "Overloaded"
        connection.close()
        connection, response = _post(server.url + "/case/nope/")
        assert response.status == 404 and b"/case/<id>/" in response.read()
        connection.close()


def test_a_dropped_connection_is_an_incomplete_body():
    with ProviderServer() as server:
        url = server.add(_served("openai-chat", [{"choices": []}], complete=False))
        connection, response = _post(url)
        with pytest.raises(http.client.IncompleteRead):
            response.read()
        connection.close()


def test_a_port_in_use_is_replaced_by_a_free_one():
    with ProviderServer() as first, ProviderServer(first.port) as second:
        assert second.port != first.port


def test_serve_prints_every_case_url_and_stops():
    threads = threading.active_count()
    out, stop = io.StringIO(), threading.Event()
    thread = threading.Thread(target=serve, args=("ollama-chat",),
                              kwargs={"seed": 3, "count": 4, "out": out, "stop": stop})
    thread.start()
    for _ in range(200):
        if out.getvalue().count("/case/") == 4:
            break
        threading.Event().wait(0.05)
    urls = [line.split()[0] for line in out.getvalue().splitlines() if "/case/" in line]
    connection, response = _post(urls[0])
    assert response.status in (200, 400, 401, 404, 429, 500, 503)
    response.read()
    connection.close()
    stop.set()
    thread.join(10)
    assert len(urls) == 4 and threading.active_count() == threads
    assert [label for label, _ in draw_served("ollama-chat", 3, 4)] == \
        [line.split("  ")[1].split(",")[0] for line in out.getvalue().splitlines() if "/case/" in line]
