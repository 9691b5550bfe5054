"""With how many tokens per delta does a repro show its bug? Run in the engine's environment.

    python peers/engines/enginematrix/sizes.py REPRO FORMAT STYLE

Loads the repro as a module (its `main()` reads its module-level `DELTAS`), cuts its model
output into the kit's tokens (the format's special tokens whole) and, for n = 1, 2, ...,
feeds it cut as the server would cut it at `--stream-interval n` (STYLE `vllm`: the first
token alone, then n at a time, as vLLM's `RequestState.make_request_output` sends; `sglang`:
n at a time, as SGLang's `stream_output` sends when the output length is a multiple of n),
the rest in the finishing delta; and for k = 1, 2, ..., one token a delta but the last k
tokens in one (the delta that carries the finish reason: speculative decoding accepting k
tokens at the end, a stop string). Prints, as JSON, the token count and, for each way of
cutting, the sizes that show it.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys

from mcs_reference import format_codec
from mcs_conformance.wires import tokenize

LARGEST = 32  # tokens per delta tried at most


def interval(tokens: list[str], n: int, first_alone: bool) -> list[list[str]]:
    head = tokens[:1] if first_alone else []
    rest = tokens[len(head):]
    return ([head] if head else []) + [rest[i:i + n] for i in range(0, len(rest), n)]


def tail(tokens: list[str], k: int) -> list[list[str]]:
    return [[t] for t in tokens[:-k]] + [tokens[-k:]]


def main(path: str, format: str, style: str) -> int:
    spec = importlib.util.spec_from_file_location("repro", path)
    repro = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(repro)
    tokens_given = isinstance(repro.DELTAS[0], list)
    text = "".join("".join(d) if tokens_given else d for d in repro.DELTAS)
    tokens = tokenize(text, format_codec(format).special_tokens)
    cuts = {"interval": lambda n: interval(tokens, n, style == "vllm"),
            "tail": lambda k: tail(tokens, k)}
    shows: dict = {"tokens": len(tokens)}
    for name, cut in cuts.items():
        shows[name] = []
        for n in range(1, min(len(tokens), LARGEST) + 1):
            deltas = cut(n)
            repro.DELTAS = deltas if tokens_given else ["".join(d) for d in deltas]
            with contextlib.redirect_stdout(io.StringIO()):
                if repro.main() == 1:
                    shows[name].append(n)
    print(json.dumps(shows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
