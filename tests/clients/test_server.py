"""The local provider server: real HTTP, the wire's framing, pieces flushed one by one, and
nothing left behind."""
from __future__ import annotations

import http.client
import io
import json
import re
import socket
import threading
from pathlib import Path

import pytest

from mcs_conformance.clients import draw_served, serve
from mcs_conformance.clients import Served, served_error, split_at
from mcs_conformance.clients import ProviderServer
from mcs_conformance.wires import BODY_QUIRKS_OF, frame_body
from mcs_conformance.wires import Case
from mcs_conformance.wires import BODY, quirk_names

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize("args,message", [(["--wire", "text"], "--wire text"),
                                          (["--wire", "openai-chat", "--port", "-1"], "--port"),
                                          (["--wire", "openai-chat", "--quirks", "nope"], "nope")])
def test_serve_refuses_bad_input_in_one_line(capsys, args, message):
    from mcs_conformance.cli import main

    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err


def test_data_padding_is_anthropics_recorded_shape():
    """Spaces before each event's closing brace (`..."}     }`), one space after `data:`."""
    chunks = [{"type": "message_start", "message": {"id": "m"}}, {"type": "ping"},
              {"type": "message_stop"}]
    body = frame_body("anthropic-messages", chunks, quirks=frozenset({"data-padding"})).decode()
    data = [line for line in body.splitlines() if line.startswith("data:")]
    assert len(data) == 3
    for line, chunk in zip(data, chunks):
        assert re.fullmatch(r'data: \{\S.*\S {1,15}\}', line), line
        assert json.loads(line[len("data: "):]) == chunk


BODY_QUIRKS_DOCUMENTED = {  # docs/quirks.md: the wires whose servers send each (or the SSE spec)
    "openai-chat": {"sse-comments", "sorted-keys", "sse-crlf", "no-space-after-data"},
    "openai-responses": {"data-before-event", "sorted-keys", "sse-crlf", "no-space-after-data"},
    "anthropic-messages": {"data-padding", "sse-crlf", "no-space-after-data"},
    "ollama-chat": set(),
    "gemini": {"spaced-json", "raw-line-separators", "sse-crlf", "no-space-after-data"},
    "bedrock-converse": set(),  # binary frames: no text-level quirk applies
}


def test_byte_level_quirks_go_only_to_wires_whose_servers_send_them():
    assert {wire: set(names) for wire, names in BODY_QUIRKS_OF.items()} == BODY_QUIRKS_DOCUMENTED
    assert set().union(*BODY_QUIRKS_OF.values()) == set(quirk_names(BODY))
    table = (ROOT / "docs" / "quirks.md").read_text("utf-8").split(
        "### Which wires' bodies get each byte-level quirk")[1]
    for name in quirk_names(BODY):
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        applied = set(re.findall(r"`([a-z-]+)`", row.split("|")[2]))
        assert applied == {w for w, names in BODY_QUIRKS_OF.items() if name in names}, row


def test_an_ollama_body_escapes_the_separators_go_escapes_and_no_other():
    # Go's encoding/json writes U+2028 and U+2029 escaped, U+0085 raw
    body = frame_body("ollama-chat", [{"message": {"content": "a\u2028b\u2029c\u0085d"}}])
    assert body == '{"message":{"content":"a\\u2028b\\u2029c\u0085d"}}\n'.encode("utf-8")
