"""Replay a saved observation: feed its model output and split to the engine's parser again.

    .peers/<engine>/bin/python peers/engines/replay.py peers/engines/observations/E/F.json N

Prints what the engine does now beside what was saved and the truth, and the clauses'
judgment of the new observation; exits 1 while a clause still fails on it (0 once fixed).
"""
from __future__ import annotations

import json
import sys
from importlib import import_module

from mcs_conformance.clauses import (judge_parser_observation, parser_clauses_judging,
                                     parser_observation)
from mcs_conformance.wires import FormatCase

FACTORIES = {"mcs-reference": "mcs_conformance.engines.reference",
             "vllm": "mcs_conformance.engines.vllm", "sglang": "mcs_conformance.engines.sglang",
             "openai-harmony": "mcs_conformance.engines.harmony"}


def main(path: str, number: str) -> int:
    cell = json.loads(open(path, encoding="utf-8").read())
    saved = cell["observations"][int(number)]
    parser = import_module(FACTORIES[cell["engine"]]).parser(cell["format"])
    case = FormatCase(saved["format"], saved["text"], [], saved["content"], saved["tools"],
                      saved["deltas"])
    now = {**parser_observation(parser, case, saved["cases"]), "calls": saved["calls"]}
    print(f"text:   {saved['text']!r} in {len(saved['deltas'])} deltas")
    print(f"truth:  calls {saved['calls']} content {saved['content']!r}")
    failed = False
    for clause in parser_clauses_judging(now):
        was, is_now = (judge_parser_observation(clause, o) for o in (saved, now))
        failed |= is_now is not None
        print(f"{clause}: saved {'passed' if was is None else was.severity}, now "
              f"{'passed' if is_now is None else f'{is_now.severity}: {is_now.reason}'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
