"""One client under certification: its server, its callable, one local round trip per case.

The server and the client (a harness process) start on first use and serve every clause of
the session; `close()` stops both. A harness that cannot start is tried once: every later
clause errors at once with the first failure, so a run never waits the start timeout twice. What the client returns is validated against
schemas/outcome.json; an exception it lets through becomes an outcome whose `error` names it
(a library's own exception types are fine for the error clauses).

A client that declares its request features (a v2 harness; a Python client taking
`request`) is never drawn a case it cannot ask for (`quirks_for`), is told the request each
case needs, and the server checks its HTTP request: a request lacking what the case needs
raises `HarnessCaseError` naming it (the case is errored, not failed).

A client that can also make its library's non-streaming call (a v3 harness on a wire it lists
in `non_streaming`; a Python client taking `stream`) can be asked the case's *whole twin*:
the same answer as `stream=false` returns it (`run(served, stream=False)`). The clauses ask
it when a streamed outcome fails, to tell a stream bug (the library disagrees with itself)
from a contract choice (it agrees with itself, not with the provider).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from mcs_conformance.clients._harness import (HarnessCaseError, HarnessError, HarnessStartError,
                                              harness_client)
from mcs_conformance.clients._outcome import check_outcome, error_outcome
from mcs_conformance.clients._served import Served
from mcs_conformance.clients._server import ProviderServer
from mcs_conformance.targets import ClientTarget, HarnessTarget
from mcs_conformance.wires import (FEATURES, QUIRKS, case_request, drawable_quirks,
                                   without_quirks)

__all__ = ["ClientRunner", "SessionServer"]


def quirks_for(quirks: frozenset | None, features: frozenset | None) -> frozenset | None:
    """The quirks a client may be drawn: the user's selection (None: every quirk) less those
    needing a request feature the client did not declare. `features` None (a v1 harness, a
    Python client without `request`): the selection unchanged, as before protocol v2."""
    if features is None:
        return quirks
    return drawable_quirks(frozenset(QUIRKS) if quirks is None else quirks, features)


def takes_keyword(function: Callable, name: str) -> bool:
    """Whether a Python client accepts the keyword `name` (`request`: it is told and checked;
    `stream`: it can be asked for its non-streamed answer)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature: two arguments
        return False
    return name in parameters


def takes_request(function: Callable) -> bool:
    """Whether a Python client accepts the `request` keyword (then it is told and checked)."""
    return takes_keyword(function, "request")


class SessionServer:
    """One provider server for a whole session, started when the first case needs it."""

    def __init__(self) -> None:
        self._server: ProviderServer | None = None

    def get(self) -> ProviderServer:
        if self._server is None:
            self._server = ProviderServer()
        return self._server

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()


class ClientRunner:
    """Runs cases of `wire` through the client `loaded`; `quirks` is the user's selection
    (None: every quirk); `.quirks` what the case generators draw from (the selection less
    what the client cannot ask for)."""

    def __init__(self, loaded: ClientTarget | HarnessTarget, wire: str, *, quirks: frozenset | None = None,
                 timeout: float = 300.0, servers: SessionServer | None = None):
        self.loaded = loaded
        self.wire = wire
        self.selected = quirks
        self.timeout = timeout
        self._own = servers is None  # a runner made alone closes its server itself
        self._servers = servers or SessionServer()
        self._client: Callable[[str, str], Any] | None = None
        self._start_failure: str | None = None  # why the first start failed: never retried

    @property
    def kind(self) -> str:
        return self.loaded.kind

    @property
    def name(self) -> str:
        """The implementation's name when a harness told it, else the target."""
        implementation = self.implementation
        if implementation and implementation.get("name"):
            return str(implementation["name"])
        return self.loaded.target

    def start(self) -> None:
        """Open the client (a harness process starts here), once: a failed start is
        remembered and raised again as `HarnessStartError` without a new try."""
        if self._client is not None:
            return
        if self._start_failure is not None:
            raise HarnessStartError(f"{self._start_failure} (the first start failed; "
                                    "not tried again)")
        try:
            self._client = self._open()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # also a clause's time limit striking during the start
            self._start_failure = str(exc) if isinstance(exc, HarnessStartError) else \
                f"{self.loaded.target}: could not be started: {type(exc).__name__}: {exc}"
            raise

    def _open(self) -> Callable[[str, str], Any]:
        """The client's callable; a harness process starts here."""
        if isinstance(self.loaded, HarnessTarget):
            return harness_client(self.loaded.target, timeout=self.timeout)
        return self.loaded.function

    @property
    def features(self) -> frozenset | None:
        """The request features the client declared on this wire; None when it declares
        none and is told nothing (a v1 harness, a Python client without `request`). A Python
        client taking `request` declares every feature of the wire, or those of its
        `request_features` attribute."""
        self.start()
        if isinstance(self.loaded, HarnessTarget):
            declared = getattr(self._client, "features", None)
            return None if declared is None else declared.get(self.wire, frozenset())
        if not takes_request(self.loaded.function):
            return None
        return frozenset(getattr(self.loaded.function, "request_features",
                                 FEATURES.get(self.wire, ())))

    @property
    def quirks(self) -> frozenset | None:
        """The quirks the case generators draw (`quirks_for`); it starts the client."""
        return quirks_for(self.selected, self.features)

    def quirks_without(self, names: frozenset) -> frozenset | None:
        """`quirks` less `names` (a clause searching again without the quirks it found)."""
        return quirks_for(without_quirks(self.selected, names), self.features)

    @property
    def asks_whole(self) -> bool:
        """Whether the client can be asked a case's non-streamed answer on this wire."""
        self.start()
        if isinstance(self.loaded, HarnessTarget):
            return self.wire in getattr(self._client, "non_streaming", ())
        return takes_keyword(self.loaded.function, "stream")

    @property
    def implementation(self) -> dict | None:
        """What a harness said it runs (None for a Python client)."""
        value = getattr(self._client, "implementation", None)
        return value if isinstance(value, dict) else None

    def run(self, served: Served, *, stream: bool = True) -> dict:
        """Serve `served`, let the client make its one request, return its checked outcome;
        `stream` False: its non-streaming call for the same case (`asks_whole` must hold)."""
        told = self.features is not None
        request = case_request(served.case) if told else None
        server = self._servers.get()
        url = server.add(served, request=request)
        keywords: dict[str, Any] = {} if stream else {"stream": False}
        if told:
            keywords["request"] = request
        try:
            try:
                value = self._client(url, self.wire, **keywords)
            except HarnessError:  # a broken harness, not the library: the case is errored
                raise
            except Exception as exc:  # the library's own exception: an error outcome
                value = error_outcome(f"{type(exc).__name__}: {exc}")
            wrong = server.mismatch(url)
            if wrong is not None:
                raise HarnessCaseError(f"{self.name}: its request did not ask what the case "
                                       f"needs, so the server answered HTTP 400: {wrong}")
            return check_outcome(value, url)
        finally:
            server.discard(url)

    def close(self) -> None:
        """Stop the client (a harness process), and the server if it is the runner's own;
        safe to call twice."""
        client, self._client = self._client, None
        try:
            if client is not None and hasattr(client, "close"):
                client.close()
        finally:
            if self._own:
                self._servers.close()
