"""Replay a saved engine finding: feed its text and split to the parser again, print both.

    .peers/<engine>/bin/python peers/engines/replay.py peers/engines/findings/E/F/CLAUSE.json

Prints the engine's non-streamed parse and its reassembled stream beside the truth, and
exits 1 while they still differ from it (0 once the engine is fixed).
"""
from __future__ import annotations

import json
import sys
from importlib import import_module

from mcs_conformance.clauses import parser_message_calls as _calls
from mcs_conformance.clauses import reassembled_parser_stream

FACTORIES = {"mcs-reference": "mcs_conformance.engines.reference",
             "vllm": "mcs_conformance.engines.vllm", "sglang": "mcs_conformance.engines.sglang",
             "openai-harmony": "mcs_conformance.engines.harmony"}


def main(path: str) -> int:
    case = json.loads(open(path, encoding="utf-8").read())
    parser = import_module(FACTORIES[case["engine"]]).parser(case["format"])
    whole = parser.parse(case["text"], case["tools"])
    streamed = reassembled_parser_stream(parser.stream(case["deltas"], case["tools"]))
    truth = [{"name": c["name"], "arguments": c["arguments"]} for c in case["calls"]
             if "error" not in c]
    squeeze = lambda text: "".join((text or "").split())  # noqa: E731
    print(f"text:        {case['text']!r}\ndeltas:      {len(case['deltas'])}")
    print(f"truth:       calls {truth} content {case['content']!r}")
    print(f"non-stream:  calls {_calls(whole)} content {whole.get('content')!r}")
    print(f"streamed:    calls {_calls(streamed)} content {streamed.get('content')!r}")
    broken = [c for c in case["calls"] if "error" in c]
    if broken:  # a malformed call must be surfaced: as a call the client refuses, or as text
        raw = squeeze(broken[0].get("raw_arguments"))
        same = all((_calls(m) and not isinstance(_calls(m)[0]["arguments"], dict))
                   or (not _calls(m) and raw and raw in squeeze(m.get("content")))
                   for m in (whole, streamed))
    else:
        same = all(_calls(m) == truth and squeeze(m.get("content")) == squeeze(case["content"])
                   for m in (whole, streamed))
    print("fixed" if same else "still differs")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
