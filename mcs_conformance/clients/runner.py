"""One client under certification: its server, its callable, one local round trip per case.

The server and the client (a harness process) start on first use and serve every clause of
the session; `close()` stops both. What the client returns is validated against
schemas/outcome.json; an exception it lets through becomes an outcome whose `error` names it
(a library's own exception types are fine for the error clauses).
"""
from __future__ import annotations

from typing import Any, Callable

from ..targets import LoadedClient
from .outcome import check_outcome, error_outcome
from .served import Served
from .server import ProviderServer

__all__ = ["ClientRunner"]


class ClientRunner:
    """Runs cases of `wire` through the client `loaded`; `quirks` is the user's selection
    (None: every quirk), which the case generators honour."""

    def __init__(self, loaded: LoadedClient, wire: str, *, quirks: frozenset | None = None,
                 timeout: float = 300.0):
        self.loaded = loaded
        self.wire = wire
        self.quirks = quirks
        self.timeout = timeout
        self._server: ProviderServer | None = None
        self._client: Callable[[str, str], Any] | None = None

    @property
    def kind(self) -> str:
        return self.loaded.kind

    @property
    def name(self) -> str:
        """The implementation's name when a harness told it, else the target."""
        implementation = getattr(self._client, "implementation", None)
        if isinstance(implementation, dict) and implementation.get("name"):
            return str(implementation["name"])
        return self.loaded.target

    def start(self) -> None:
        if self._server is None:
            self._server = ProviderServer()
        if self._client is None:
            self._client = self.loaded.open(self.timeout)

    def run(self, served: Served) -> dict:
        """Serve `served`, let the client make its one request, return its checked outcome."""
        self.start()
        url = self._server.add(served)
        try:
            try:
                value = self._client(url, self.wire)
            except Exception as exc:  # the library's own exception: an error outcome
                value = error_outcome(f"{type(exc).__name__}: {exc}")
            return check_outcome(value, url)
        finally:
            self._server.discard(url)

    def close(self) -> None:
        """Stop the client (a harness process) and the server; safe to call twice."""
        client, self._client = self._client, None
        server, self._server = self._server, None
        try:
            if client is not None and hasattr(client, "close"):
                client.close()
        finally:
            if server is not None:
                server.close()
