"""Protocol v3: a harness declares the wires where its library has a non-streaming call, and
the kit may ask it the same case's non-streamed answer there; the local server answers a
non-streamed request with the case's whole twin, told as each provider tells it."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_conformance.clients import (ClientRunner, HarnessCaseError, ProviderServer,
                                     error_streams, harness_client, streams)
from mcs_conformance.clients.reference_client import reference_client
from mcs_conformance.targets import HarnessTarget
from mcs_conformance.wires import NATIVE_WIRES, case_request

FEW = settings(max_examples=15, database=None, deadline=None,
               suppress_health_check=list(HealthCheck))

# A v3 harness: the reference client, streamed or not as the run line says; its first
# argument lists the wires it declares a non-streaming call on.
FAKE = textwrap.dedent('''
    import json, sys
    from mcs_conformance.clients.reference_client import reference_client
    whole = [w for w in sys.argv[1].split(",") if w]
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "start":
            print(json.dumps({"ready": True, "version": 3, "implementation": {
                "name": "fake-v3", "language": "python", "version": "1", "homepage": "",
                "wires": ["openai-chat", "anthropic-messages"]},
                "features": {}, "non_streaming": whole}), flush=True)
        elif msg["cmd"] == "run":
            outcome = reference_client(msg["base_url"], msg["wire"], msg["request"],
                                       stream=msg["stream"])
            print(json.dumps({"seq": msg["seq"], "outcome": outcome}), flush=True)
        elif msg["cmd"] == "stop":
            break
''')


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_v3.py"
    path.write_text(FAKE)
    return path


def command(fake: Path, whole: str) -> str:
    return f"{sys.executable} {fake} {whole}"


def test_a_v3_harness_is_asked_the_non_streamed_answer_where_it_declares_one(fake):
    runner = ClientRunner(HarnessTarget(command(fake, "openai-chat")), "openai-chat")
    try:
        assert runner.asks_whole

        @FEW
        @given(streams("openai-chat", runner.quirks, min_calls=1))
        def run(served):
            streamed, whole = runner.run(served), runner.run(served, stream=False)
            assert whole == streamed  # the reference agrees with itself
            assert whole["message"] == served.whole["choices"][0]["message"]

        run()
    finally:
        runner.close()


def test_a_wire_without_a_declared_non_streaming_call_is_never_asked_one(fake):
    with harness_client(command(fake, "openai-chat"), timeout=10) as client:
        assert client.version == 3 and client.non_streaming == frozenset({"openai-chat"})
        with pytest.raises(HarnessCaseError, match="has no non-streaming call on "
                                                   "anthropic-messages"):
            client("http://127.0.0.1:9/case/1/", "anthropic-messages", stream=False)
    runner = ClientRunner(HarnessTarget(command(fake, "openai-chat")), "anthropic-messages")
    try:
        assert not runner.asks_whole
    finally:
        runner.close()


@pytest.mark.parametrize("wire", sorted(NATIVE_WIRES))
def test_the_server_answers_a_non_streamed_request_with_the_whole_twin(wire):
    """The reference reads every case the same streamed and not: the twin is the stream's
    own stream=false body; a provider error mid-stream is an error both ways."""
    with ProviderServer() as server:
        @FEW
        @given(streams(wire, frozenset()))
        def same(served):
            url = server.add(served)
            request = case_request(served.case)
            assert reference_client(url, wire, request) == \
                reference_client(url, wire, request, stream=False)

        @FEW
        @given(error_streams(wire, frozenset()))
        def both_errors(served):
            url = server.add(served)
            request = case_request(served.case)
            assert reference_client(url, wire, request)["error"] is not None
            assert reference_client(url, wire, request, stream=False)["error"] is not None

        same()
        both_errors()


def test_a_non_streamed_request_is_not_asked_what_only_a_stream_needs():
    """OpenAI refuses `stream_options` unless streaming: a client's non-streaming call for a
    case that ends in the usage-only chunk asks no `include_usage`, and the server's check
    accepts it (a streaming request lacking it is still refused)."""
    with ProviderServer() as server:
        @FEW
        @given(streams("openai-chat", frozenset({"usage-only-chunk"}), min_calls=1))
        def run(served):
            request = case_request(served.case)
            if not request.get("include_usage"):
                return
            url = server.add(served, request=request)
            assert reference_client(url, "openai-chat", request, stream=False)["error"] is None
            assert server.mismatch(url) is None
            bare = {key: value for key, value in request.items() if key != "include_usage"}
            assert reference_client(url, "openai-chat", bare)["error"] is not None
            assert "include_usage" in server.mismatch(url)

        run()
