"""A client in any language: a harness process spoken to in JSON lines (protocol v3, v2 or v1).

The kit starts the harness command once, with the current directory unchanged, and writes
one JSON object a line to its stdin; the harness answers one a line on its stdout (its
stderr is free for logs, and the kit quotes its last line when the harness dies):

    kit     {"cmd": "start", "version": 1}
    harness {"ready": true, "version": 3, "implementation": {...}, "features": {"openai-chat": ["n"]},
             "non_streaming": ["openai-chat"]}
    kit     {"cmd": "run", "seq": 1, "wire": "openai-chat", "base_url": "http://127.0.0.1:PORT/case/ID/",
             "request": {"tools": [...], "n": 2}, "stream": true}
    harness {"seq": 1, "outcome": {"calls": [...], "text": "...", "message": null, "error": null}}
    kit     {"cmd": "stop"}                              (the harness exits 0)

The start line is v1's, so a v1 harness reads it unchanged; the ready line's version picks
the protocol. A v1 harness (ready version 1, no features) gets v1 run lines, with no
`request`, and its requests are not checked; a v2 one is never asked a non-streamed
answer (`stream` false, v3: the library's own `stream=false` call for the same case, the
first oracle of the peer matrix). Every line, both ways, is validated against
the schemas in `schemas/harness/v<version>/`. A harness that dies, writes a line that is
not the awaited reply, or answers later than the timeout has its case raise
`HarnessCaseError` (the clause reports it as errored) and is started afresh for the next
case; one that cannot be started raises `HarnessStartError`.
"""
from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from mcs_conformance.base import shorten

__all__ = ["PROTOCOL_VERSION", "HarnessCaseError", "HarnessClient", "HarnessError",
           "HarnessStartError", "harness_client"]

PROTOCOL_VERSION = 3  # the newest the kit speaks; it also speaks every older one
VERSIONS = (1, 2, 3)
START_VERSION = 1  # the start line is v1's for every version
SCHEMA_BASE = "https://mcs-conformance.dev/schemas/"
SHOWN = 200  # characters of a bad line quoted in an error
STOP_GRACE = 5.0  # seconds a harness gets to exit after stop before it is killed


class HarnessError(RuntimeError):
    """A harness broke the harness protocol or could not be run; the message is one line naming the
    command and the line or the seq at fault."""


class HarnessStartError(HarnessError):
    """Raised when the harness cannot be started: not found, not executable, or no valid
    ready line within the timeout. A usage error (the command line exits 2)."""


class HarnessCaseError(HarnessError):
    """Raised for one case the harness did not answer properly: it died, wrote a line that
    is not the awaited result, was slower than the timeout, or its library's request did
    not ask what the case needs (the message names what it lacked). The clause reports the
    case as errored; after a broken exchange the harness is started afresh."""


class _Late(Exception):
    """No line before the deadline (not TimeoutError: that is an OSError, like a broken pipe)."""


# -- schemas -------------------------------------------------------------------------------
def _retrieve(uri: str) -> Resource:
    """The kit's own schemas by their `$id`, so `result.json` can point at `outcome.json`."""
    if not uri.startswith(SCHEMA_BASE):
        raise NoSuchResource(ref=uri)
    name = uri[len(SCHEMA_BASE):]
    text = resources.files("mcs_conformance").joinpath("schemas", *name.split("/")).read_text("utf-8")
    return Resource.from_contents(json.loads(text))


@lru_cache(maxsize=None)
def _validator(message: str, version: int) -> Draft202012Validator:
    schema = _retrieve(f"{SCHEMA_BASE}harness/v{version}/{message}.json").contents
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=Registry(retrieve=_retrieve))


def schema_errors(instance: Any, message: str, version: int = PROTOCOL_VERSION) -> list[str]:
    """Why `instance` is not a valid `message` line (start, ready, run, result, stop) of
    protocol `version`."""
    return [f"{'/'.join(str(p) for p in err.absolute_path) or '<root>'}: {err.message}"
            for err in _validator(message, version).iter_errors(instance)]


def _ready_version(reply: Any) -> int:
    """The version a ready line says, to pick its schema: v1's unless it says another the
    kit speaks (a bad one is then reported by v1's schema)."""
    version = reply.get("version") if isinstance(reply, dict) else None
    return version if version in VERSIONS and not isinstance(version, bool) else 1


def _shown(raw: bytes) -> str:
    """A line the harness wrote, quoted in an error: its first SHOWN characters."""
    return repr(shorten(raw.decode("utf-8", "replace").rstrip("\r\n"), SHOWN + 3))


# -- one harness process -------------------------------------------------------------------
class _Process:
    """One run of the harness command: its pipes, its stdout cut into lines, its stderr
    kept in a temporary file to quote when it dies."""

    def __init__(self, argv: list[str], where: str):
        self.where = where
        self.stderr = tempfile.TemporaryFile()
        try:
            self.popen = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                start_new_session=True)  # its own group: a wrapper's children end with it
        except OSError as exc:
            self.stderr.close()
            reason = exc.strerror or str(exc)
            raise HarnessStartError(f"{where}: cannot start {argv[0]!r}: {reason} "
                                    "(give an executable command, e.g. 'node harness.js')") from None
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.popen.stdout, selectors.EVENT_READ)
        self.pending = bytearray()
        self.lineno = 0  # stdout lines read so far

    def send(self, message: dict) -> None:
        """Write one line; BrokenPipeError / OSError when the harness is gone."""
        self.popen.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.popen.stdin.flush()

    def read_line(self, deadline: float) -> bytes | None:
        """The next stdout line, None at end of output; `_Late` past `deadline`."""
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise _Late
            data = os.read(self.popen.stdout.fileno(), 65536)
            if not data:
                if not self.pending:
                    return None
                self.pending += b"\n"  # a last line without its newline
            self.pending += data
        line, _, rest = bytes(self.pending).partition(b"\n")
        self.pending = bytearray(rest)
        self.lineno += 1
        return line

    def died(self) -> str:
        """How the harness ended, with the last line of its stderr."""
        try:
            status = self.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            status = None
        said = f"exited with status {status}" if status is not None else "closed its stdout"
        self.stderr.seek(0)
        logs = [line for line in self.stderr.read()[-4000:].decode("utf-8", "replace").splitlines()
                if line.strip()]
        return f"{said}; its stderr ends: {logs[-1].strip()!r}" if logs else f"{said} (no stderr)"

    def close(self, grace: float) -> None:
        """Stop it (stop line, then end of stdin), kill its group after `grace`, reap it,
        close every pipe."""
        popen = self.popen
        if popen.poll() is None:
            try:
                self.send({"cmd": "stop"})
                popen.stdin.close()
            except OSError:
                pass
            try:
                popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()
        self.kill()  # children it left behind in its group
        popen.wait()
        self.selector.close()
        for pipe in (popen.stdin, popen.stdout, self.stderr):
            try:
                pipe.close()
            except OSError:
                pass

    def kill(self) -> None:
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# -- the client ----------------------------------------------------------------------------
class HarnessClient:
    """A client target `(base_url, wire, request=None) -> outcome` backed by a harness process.

    `.implementation` is the harness's ready reply's implementation, `.version` the protocol
    it speaks, `.features` the request features it declared (wire -> frozenset; None for a
    v1 harness), `.non_streaming` the wires where it can answer a case with its library's
    non-streaming call (v3; empty before); `.close()` stops it (also on leaving a `with`
    block). Calls are serialised: one case at a time. A v2 or v3 harness is told `request`
    (`wires.case_request`; no tools and no option when None); a v1 harness never is.
    """

    def __init__(self, command: str, *, timeout: float):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise HarnessStartError(f"harness {command!r}: cannot split the command line: {exc}") from None
        if not argv:
            raise HarnessStartError("harness '': empty command (give e.g. --harness 'node harness.js')")
        if timeout <= 0:
            raise HarnessStartError(f"harness {command!r}: timeout must be positive, got {timeout!r}")
        self.command = command
        self.timeout = timeout
        self._argv = argv
        self._lock = threading.Lock()
        self._seq = 0
        self._process: _Process | None = None
        self._stale = False  # an exchange was cut short: start afresh before the next case
        self._broken: str | None = None  # why a restart failed: every later case says so at once
        self.version = 1
        self.features: dict[str, frozenset] | None = None
        self.non_streaming: frozenset = frozenset()
        self._process, self.implementation = self._start()

    @property
    def _where(self) -> str:
        return f"harness {self.command!r}"

    def _start(self) -> tuple[_Process, dict]:
        """A fresh process that has answered start with a valid ready line."""
        process = _Process(self._argv, self._where)
        try:
            implementation = self._handshake(process)
        except BaseException:
            process.close(grace=0)
            raise
        return process, implementation

    def _handshake(self, process: _Process) -> dict:
        start = {"cmd": "start", "version": START_VERSION}
        self._check_sent(start, "start")
        fail = f"{self._where} did not answer start"
        try:
            process.send(start)
            raw = process.read_line(time.monotonic() + self.timeout)
        except OSError:
            raise HarnessStartError(f"{fail}: it {process.died()}") from None
        except _Late:
            raise HarnessStartError(f"{fail} within {self.timeout:g} s (raise the timeout if it "
                                    "is only slow to start)") from None
        if raw is None:
            raise HarnessStartError(f"{fail}: it {process.died()}")
        reply = self._parse(raw, process, "ready", HarnessStartError)
        self.version = reply["version"]
        self.features = None if self.version == 1 else {
            wire: frozenset(reply["features"].get(wire, ()))
            for wire in reply["implementation"]["wires"]}
        self.non_streaming = frozenset(reply.get("non_streaming", ()))
        return reply["implementation"]

    def _parse(self, raw: bytes, process: _Process, message: str, error: type[HarnessError]) -> dict:
        """The line as a valid `message`, else `error` naming the line."""
        where = f"{self._where} line {process.lineno} of its stdout"
        try:
            reply = json.loads(raw)
        except ValueError as exc:  # also bad UTF-8
            raise error(f"{where} is not JSON ({exc}): {_shown(raw)}") from None
        version = _ready_version(reply) if message == "ready" else self.version
        problems = schema_errors(reply, message, version)
        if problems:
            raise error(f"{where} is no valid {message} line ({problems[0]}; schema "
                        f"harness/v{version}/{message}.json): {_shown(raw)}")
        return reply

    def _check_sent(self, message: dict, kind: str) -> None:
        problems = schema_errors(message, kind, self.version)
        if problems:  # a bug of the kit's, never the harness's
            raise HarnessError(f"{self._where}: the kit's own {kind} line is invalid: {problems[0]}")

    def __call__(self, base_url: str, wire: str, request: dict | None = None, *,
                 stream: bool = True) -> dict:
        """Run one case through the harness (a v2 or v3 one told `request`; `stream` False
        asks a v3 one for its library's non-streamed answer); its outcome, validated."""
        with self._lock:
            if self._stale or self._process is None:
                self._restart()
            self._seq += 1
            seq = self._seq
            run = {"cmd": "run", "seq": seq, "wire": wire, "base_url": base_url}
            if self.version >= 2:
                run["request"] = request if request is not None else {"tools": []}
            if self.version >= 3:
                run["stream"] = stream
            self._check_sent(run, "run")
            if wire not in self.implementation["wires"]:
                raise HarnessCaseError(f"{self._where} runs only {', '.join(self.implementation['wires'])}; "
                                       f"seq {seq} asked for {wire}")
            if not stream and wire not in self.non_streaming:
                raise HarnessCaseError(f"{self._where} has no non-streaming call on {wire} "
                                       f"(its ready line's non_streaming); seq {seq} asked one")
            self._stale = True  # until a proper reply: cut short (a clause timeout too) = restart
            process = self._process
            case = f"seq {seq} ({base_url})"
            try:
                process.send(run)
                raw = process.read_line(time.monotonic() + self.timeout)
            except OSError:
                raise HarnessCaseError(f"{self._where} died before answering {case}: it "
                                       f"{process.died()}; it is restarted for the next case") from None
            except _Late:
                raise HarnessCaseError(f"{self._where} did not answer {case} within {self.timeout:g} s; "
                                       "it is restarted for the next case") from None
            if raw is None:
                raise HarnessCaseError(f"{self._where} died while running {case}: it "
                                       f"{process.died()}; it is restarted for the next case")
            try:
                reply = json.loads(raw)
            except ValueError:
                reply = None
            in_step = isinstance(reply, dict) and reply.get("seq") == seq
            if in_step:  # the awaited reply, however bad its outcome: no restart needed
                self._stale = False
            result = self._parse(raw, process, "result", HarnessCaseError)
            if not in_step:
                raise HarnessCaseError(f"{self._where} line {process.lineno} of its stdout answers seq "
                                       f"{reply.get('seq')}, expected {case}: {_shown(raw)}")
            return result["outcome"]

    def _restart(self) -> None:
        if self._broken is not None:
            raise HarnessCaseError(self._broken)
        old, self._process = self._process, None
        if old is not None:
            old.close(grace=0)
        try:
            self._process, _ = self._start()
        except HarnessStartError as exc:
            self._broken = f"could not restart the harness: {exc}"
            raise HarnessCaseError(self._broken) from None
        self._stale = False

    def close(self) -> None:
        """Send stop, wait for the harness to exit (kill it if it does not), free its pipes."""
        with self._lock:
            process, self._process = self._process, None
            if process is not None:
                process.close(grace=0 if self._stale else min(self.timeout, STOP_GRACE))

    def __enter__(self) -> HarnessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten client still ends its harness
        process = getattr(self, "_process", None)
        if process is not None:
            process.close(grace=0)


def harness_client(command: str, *, timeout: float) -> HarnessClient:
    """Start the harness `command` (a shell-quoted command line) and shake hands.

    Returns the client target; raises `HarnessStartError` with one line when it cannot be
    started or gives no valid ready line within `timeout` seconds. Each case gets
    `timeout` seconds too.
    """
    return HarnessClient(command, timeout=timeout)
