"""The four kinds of target, as loaded: each carries what its clauses need, and nothing else."""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Union

__all__ = ["ClientTarget", "HarnessTarget", "ParserTarget", "StrategyTarget", "Target"]


@dataclass(frozen=True)
class StrategyTarget:
    """An extraction strategy: how the user wrote it, one instance, and how to make more."""

    target: str
    strategy: Any
    make: Callable[[], Any]
    kind: ClassVar[str] = "strategy"

    @property
    def option(self) -> str:
        """The pytest option that names this target again."""
        return f"--mcs-strategy={self.target}"


@dataclass(frozen=True)
class ClientTarget:
    """A client: how the user wrote it, and the callable `(base_url, wire) -> outcome`."""

    target: str
    function: Callable[[str, str], Any]
    kind: ClassVar[str] = "client"

    @property
    def option(self) -> str:
        return f"--mcs-client={self.target}"


@dataclass(frozen=True)
class HarnessTarget:
    """A harness: the command line of a process speaking the harness protocol
    (docs/harness-protocol.md); the client runner starts it once a run."""

    target: str
    kind: ClassVar[str] = "harness"

    @property
    def option(self) -> str:
        return f"--mcs-harness={shlex.quote(self.target)}"


@dataclass(frozen=True)
class ParserTarget:
    """An engine's tool parser for one catalogue format: how the user wrote its factory,
    the format, the parser the factory made for it (`mcs_conformance.engines`), and the
    format's reference codec, which writes what the parser is fed."""

    target: str
    format: str
    parser: Any
    codec: Any
    kind: ClassVar[str] = "parser"

    @property
    def option(self) -> str:
        return f"--mcs-parser={self.target} --mcs-format={self.format}"


Target = Union[StrategyTarget, ClientTarget, HarnessTarget, ParserTarget]
