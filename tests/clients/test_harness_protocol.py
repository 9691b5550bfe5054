"""Protocol v1 as the kit speaks it, against tiny fake v1 harnesses written by the test
(an unchanged v1 harness keeps working; v2 is in test_harness_v2.py).

Each fake is one Python script whose behaviour is picked by its first argument; its ready
reply carries its pid as the implementation's version, so a test can tell a restarted
harness from the first one and check that none is left running.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from mcs_conformance.clients._harness import (HarnessCaseError, HarnessError, HarnessStartError,
                                             harness_client, schema_errors)

FAKE = textwrap.dedent('''
    import json, os, sys, time
    mode = sys.argv[1]
    def say(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "start":
            if mode == "silent":  # its second argument, if any: a file counting its starts
                if len(sys.argv) > 2:
                    open(sys.argv[2], "a").write("start\\n")
                continue
            version = 9 if mode == "future" else 1
            say({"ready": True, "version": version, "implementation": {
                "name": "fake-" + mode, "language": "python", "version": str(os.getpid()),
                "homepage": "", "wires": ["openai-chat"]}})
        elif msg["cmd"] == "run":
            url, seq = msg["base_url"], msg["seq"]
            if "crash" in url:
                sys.stderr.write("log line\\nboom on seq %d\\n" % seq); sys.exit(3)
            if "garbage" in url:
                sys.stdout.write("hello, not json\\n"); sys.stdout.flush(); continue
            if "slow" in url:
                time.sleep(30)
            if "wrongseq" in url:
                seq += 100
            outcome = {"calls": [{"name": "f", "arguments": {"a": 1}, "id": None}],
                       "text": url, "message": None, "error": None}
            if "badoutcome" in url:
                del outcome["text"]
            say({"seq": seq, "outcome": outcome})
        elif msg["cmd"] == "stop":
            if mode == "stubborn":
                time.sleep(60)
            sys.exit(0)
''')
URL = "http://127.0.0.1:9/case/{}/"


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_harness.py"
    path.write_text(FAKE)
    return path


def command(fake: Path, mode: str) -> str:
    return f"{sys.executable} {fake} {mode}"


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_leaks():
    """Every test leaves no thread and no file descriptor behind."""
    threads, fds = threading.active_count(), open_fds()
    yield
    assert threading.active_count() == threads
    assert open_fds() <= fds


def test_a_good_harness_answers_each_case_and_stops(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=10) as client:
        pid = int(client.implementation["version"])
        assert client.implementation["name"] == "fake-good"
        for n in range(3):
            outcome = client(URL.format(n), "openai-chat")
            assert outcome == {"calls": [{"name": "f", "arguments": {"a": 1}, "id": None}],
                               "text": URL.format(n), "message": None, "error": None}
    assert gone(pid)


def test_a_crash_errors_its_case_and_the_harness_is_restarted(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=10) as client:
        first = int(client.implementation["version"])
        client(URL.format("ok"), "openai-chat")
        with pytest.raises(HarnessCaseError) as crashed:
            client(URL.format("crash"), "openai-chat")
        assert "seq 2" in str(crashed.value)
        assert "exited with status 3" in str(crashed.value)
        assert "boom on seq 2" in str(crashed.value)  # the last line of its stderr
        assert gone(first)
        assert client(URL.format("after"), "openai-chat")["text"] == URL.format("after")


def test_garbage_names_the_line_and_the_next_case_runs_on_a_fresh_harness(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=10) as client:
        with pytest.raises(HarnessCaseError,
                           match=r"line 2 of its stdout is not JSON .*'hello, not json'"):
            client(URL.format("garbage"), "openai-chat")
        assert client(URL.format("after"), "openai-chat")["text"] == URL.format("after")


def test_a_reply_with_another_seq_is_refused(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=10) as client:
        with pytest.raises(HarnessCaseError, match=r"answers seq 101, expected seq 1 "):
            client(URL.format("wrongseq"), "openai-chat")
        assert client(URL.format("after"), "openai-chat")["text"] == URL.format("after")


def test_an_outcome_that_breaks_the_schema_names_the_field(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=10) as client:
        pid = client.implementation["version"]
        with pytest.raises(HarnessCaseError, match=r"no valid result line \(outcome: 'text' is a required"):
            client(URL.format("badoutcome"), "openai-chat")
        client(URL.format("after"), "openai-chat")
        assert client.implementation["version"] == pid  # still in step: not restarted


def test_a_reply_slower_than_the_timeout_errors_and_restarts(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=1) as client:
        first = int(client.implementation["version"])
        with pytest.raises(HarnessCaseError, match=r"did not answer seq 1 .* within 1 s"):
            client(URL.format("slow"), "openai-chat")
        assert client(URL.format("after"), "openai-chat")["text"] == URL.format("after")
    assert gone(first)


class Interrupted(BaseException):
    """What a clause's time limit raises in the middle of a case."""


def test_a_case_cut_short_from_outside_restarts_the_harness(fake, no_leaks):
    def interrupt(signum, frame):
        raise Interrupted
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with harness_client(command(fake, "good"), timeout=20) as client:
            first = int(client.implementation["version"])
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with pytest.raises(Interrupted):
                client(URL.format("slow"), "openai-chat")
            assert client(URL.format("after"), "openai-chat")["text"] == URL.format("after")
            assert gone(first)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_harness_that_ignores_stop_is_killed(fake, no_leaks):
    client = harness_client(command(fake, "stubborn"), timeout=1)
    pid = int(client.implementation["version"])
    began = time.monotonic()
    client.close()
    assert gone(pid)
    assert time.monotonic() - began < 30  # killed: not left to end its 60 s sleep


def test_a_harness_that_never_answers_start(fake, no_leaks):
    with pytest.raises(HarnessStartError) as never:
        harness_client(command(fake, "silent"), timeout=0.5)
    assert str(never.value) == f"harness {command(fake, 'silent')!r} did not answer start within " \
                               "0.5 s (raise the timeout if it is only slow to start)"


def test_a_harness_that_is_not_executable(tmp_path, no_leaks):
    script = tmp_path / "harness.sh"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(HarnessStartError, match=r"cannot start '.*harness.sh': Permission denied"):
        harness_client(str(script), timeout=5)
    with pytest.raises(HarnessStartError, match=r"cannot start 'no-such-harness': No such file"):
        harness_client("no-such-harness --flag", timeout=5)


def test_a_harness_that_exits_at_start_quotes_its_stderr(no_leaks):
    cmd = f"{sys.executable} -c \"import sys; sys.exit('missing dependency')\""
    with pytest.raises(HarnessStartError, match=r"did not answer start: it exited with status 1; "
                                                r"its stderr ends: 'missing dependency'"):
        harness_client(cmd, timeout=5)


def test_a_ready_line_of_another_protocol_version_is_refused(fake, no_leaks):
    with pytest.raises(HarnessStartError, match=r"line 1 of its stdout is no valid ready line \(version: 1 was expected"):
        harness_client(command(fake, "future"), timeout=5)


def test_a_wire_the_harness_does_not_run_errors_the_case(fake, no_leaks):
    with harness_client(command(fake, "good"), timeout=5) as client:
        with pytest.raises(HarnessCaseError, match=r"runs only openai-chat; seq 1 asked for ollama-chat"):
            client(URL.format(1), "ollama-chat")


def test_every_error_is_one_line_and_a_harness_error():
    assert issubclass(HarnessStartError, HarnessError) and issubclass(HarnessCaseError, HarnessError)


def test_the_kits_lines_and_a_good_reply_fit_the_v1_schemas():
    assert schema_errors({"cmd": "start", "version": 1}, "start", 1) == []
    assert schema_errors({"cmd": "stop"}, "stop", 1) == []
    assert schema_errors({"cmd": "run", "seq": 1, "wire": "openai-chat", "base_url": URL.format(1)}, "run", 1) == []
    assert schema_errors({"cmd": "run", "seq": 0, "wire": "openai-chat", "base_url": "x"}, "run", 1) == [
        "seq: 0 is less than the minimum of 1", "base_url: 'x' does not match '^https?://'"]
    assert schema_errors({"seq": 1, "outcome": {"calls": [], "text": "", "message": None, "error": None},
                          "extra": 1}, "result", 1) == [
        "<root>: Additional properties are not allowed ('extra' was unexpected)"]


# The kit starts the harness again after each crash, and Hypothesis tries some 45 cases more:
# the client is imported only where it answers, so that those starts stay cheap.
CRASHING = textwrap.dedent('''
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "start":
            print(json.dumps({"ready": True, "version": 1, "implementation": {
                "name": "crashes-from-seq-3", "language": "python", "version": "1",
                "homepage": "", "wires": ["openai-chat"]}}), flush=True)
        elif msg["cmd"] == "run":
            if msg["seq"] >= 3:
                sys.exit("crashed on purpose")
            from mcs_conformance.clients.reference_client import reference_client
            outcome = reference_client(msg["base_url"], msg["wire"])
            print(json.dumps({"seq": msg["seq"], "outcome": outcome}), flush=True)
        else:
            break
''')


def test_a_harness_that_crashes_errors_the_clause_in_a_certification(tmp_path):
    """Never a pass: a crash is not the library reporting an error."""
    (tmp_path / "crashing.py").write_text(CRASHING)
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mcs_conformance.cli", "certify", "--harness",
         f"{sys.executable} {tmp_path / 'crashing.py'}", "--wire", "openai-chat",
         "--clause", "client.provider-error", "--profile", "dev", "--seed", "0", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    clause = [json.loads(line) for line in (out / "report.jsonl").read_text().splitlines()][1]
    assert clause["verdict"] == "errored"
    assert "HarnessCaseError" in clause["reason"]
    assert "exited with status 1; its stderr ends: 'crashed on purpose'" in clause["reason"]


def test_a_harness_that_cannot_start_is_tried_once_per_run(fake, pytester):
    """Four clauses, a harness that never answers start: one start timeout, not four."""
    clauses = ["client.calls", "client.text", "client.http-error", "client.truncated"]
    starts = pytester.path / "starts.log"
    result = pytester.runpytest(f"--mcs-harness={command(fake, 'silent')} {starts}",
                                "--mcs-wire=openai-chat", "--mcs-timeout=2", "-p", "no:randomly",
                                *[f"--mcs-clause={c}" for c in clauses])
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("errors", 0) == 4, outcomes
    assert starts.read_text().count("start") == 1, "the start was retried"
    result.stdout.fnmatch_lines(["*did not answer start*(the first start failed; not tried again)*"])
