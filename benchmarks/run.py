"""Benchmarks of the reference against its peers, printed as ratios measured in one run.

    python benchmarks/run.py            # the full table (a few minutes)
    python benchmarks/run.py --quick    # growth ratios only; exit 1 if any is above 2
    python benchmarks/run.py --floor    # cost per chunk over json.loads, every wire (seconds)
    python benchmarks/run.py --kit-only # the kit's certification speed only
    python benchmarks/run.py --against 1adc1ba  # certify speed over an older commit's

The full table exits 1 when a figure misses its target.

Absolute times mean little on a shared machine; every figure here is a ratio of two
timings taken in the same run, each the best of several repeats.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import streams  # noqa: E402
from feeding import feed, loads_only, reader  # noqa: E402

from mcs_conformance.targets import BUNDLED_STRATEGIES  # noqa: E402
from mcs_reference import BaseDriver, LLMStreamBuffer, default_chain  # noqa: E402

# Cost per chunk over json.loads: at most 1.5 on every wire, OpenAI Chat aims lower.
FLOOR_TARGETS = {"openai-chat": 1.45}
FLOOR_TARGET = 1.5


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """Best CPU time of `repeats` runs, with the collector off while timing: the process's
    own time, so that other work on a busy machine does not count as ours."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            run()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def floor_costs(wires: list[str], n: int = 5000, rounds: int = 15) -> dict[str, tuple[float, float]]:
    """Seconds per chunk of json.loads alone and of json.loads + add, from the same texts,
    for each wire.

    Every round times each wire's two sides in turn, and each keeps its best: a slow spell
    of the machine then hits both sides, and every wire, alike instead of one.
    """
    texts = {wire: streams.WIRES[wire](n) for wire in wires}
    best = {wire: [float("inf"), float("inf")] for wire in wires}
    for _ in range(rounds):
        for wire in wires:
            floor = best_of(1, lambda: loads_only(texts[wire]))
            ours = best_of(1, lambda: feed(texts[wire]))
            best[wire] = [min(best[wire][0], floor), min(best[wire][1], ours)]
    return {wire: (floor / len(texts[wire]), ours / len(texts[wire]))
            for wire, (floor, ours) in best.items()}


def window_costs(texts: list, windows: list[range], driver: bool) -> list[float]:
    """Time each window of chunks inside one stream, feeding the chunks between untimed.

    Comparing a window late in a long stream with an early one asks exactly "does a chunk
    cost more when much came before?", with the same chunk sizes and the same process state.
    """
    read = reader(texts)
    buf = LLMStreamBuffer(default_chain())
    process = BaseDriver(tools={"write_file": lambda **kw: "ok"}).process_llm_response if driver else None
    costs, position = [], 0
    gc.disable()
    try:
        for window in windows:
            for text in texts[position:window.start]:
                buf.add(read(text))
                if process:
                    process(buf)
            start = time.perf_counter()
            for text in texts[window.start:window.stop]:
                buf.add(read(text))
                if process:
                    process(buf)
            costs.append((time.perf_counter() - start) / len(window))
            position = window.stop
    finally:
        gc.enable()
    return costs


def growth(wire: str, *, driver: bool, small: int = 100, large: int = 10_000, repeats: int = 9) -> float:
    """Per-chunk cost around chunk `large` over per-chunk cost in the first `small` chunks.

    Both windows stay clear of the first chunk (wire resolution) and of the last ones (the
    end of the stream, where the driver extracts once, in time linear in the message).
    """
    texts = streams.WIRES[wire](large)
    early, late = range(1, 1 + small), range(large - 2 * small, large - small)
    best_early = best_late = float("inf")
    for _ in range(repeats):
        cost_early, cost_late = window_costs(texts, [early, late], driver)
        best_early, best_late = min(best_early, cost_early), min(best_late, cost_late)
    return best_late / best_early


def sdk_openai(texts: list[str]) -> None:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    for text in texts:
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=json.loads(text)))
    state.get_final_completion()


def sdk_anthropic(texts: list[str]) -> None:
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot, buffers = None, {}
    for text in texts:
        snapshot = accumulate_event(event=json.loads(text), current_snapshot=snapshot, json_bufs=buffers)


def sdk_speedup(wire: str, sdk: Callable[[list[str]], None], n: int) -> float:
    """The SDK's time over ours on the same JSON texts, each the best of turns taken in
    alternation (as in `floor_costs`)."""
    texts = streams.WIRES[wire](n)
    theirs = ours = float("inf")
    for _ in range(7 if n <= 1000 else 3):
        theirs = min(theirs, best_of(1, lambda: sdk(texts)))
        ours = min(ours, best_of(1, lambda: feed(texts)))
    return theirs / ours


def memory_ratio(wire: str, n: int = 10_000) -> float:
    texts = streams.WIRES[wire](n)
    tracemalloc.start()
    buf = feed(texts)
    message = buf.as_dict()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / len(json.dumps(message))


def drawn_per_second(target: str, examples: int = 300) -> float:
    """Cases per second the target's wire draws with nothing checked, under the ci profile:
    the kit's floor (a clause cannot run faster than its cases are drawn)."""
    from hypothesis import given, settings

    from mcs_conformance.plugin import profile_settings
    from mcs_conformance.targets import load_strategy
    from mcs_conformance.wires import wire_for_strategy

    wire = wire_for_strategy(load_strategy(target).strategy)
    drawn = [0]

    @settings(profile_settings("ci"), max_examples=examples)
    @given(wire.cases())
    def draw(case: object) -> None:
        drawn[0] += 1

    start = time.perf_counter()
    draw()
    return drawn[0] / (time.perf_counter() - start)


def certify_one(target: str) -> tuple[str, float, int, float]:
    """Certify one bundled strategy at the ci profile: (target, seconds, examples run, cases
    its wire draws per second alone, timed in the same process right after)."""
    from mcs_conformance.certify import Request, run

    start = time.perf_counter()
    report = run(Request(target=target, profile="ci", seed=0))
    seconds = time.perf_counter() - start
    if not report.certified:
        raise SystemExit(f"{target} is not certified: {report.unexpected}")
    examples = sum(result.examples or 0 for result in report.results)
    return target, seconds, examples, drawn_per_second(target)


def kit_speed(workers: int = 2) -> tuple[float, list[tuple[str, float, int, float]]]:
    """Certify every bundled strategy on `workers` processes, as CI on 2 cores would:
    the wall time in all, and each target's `certify_one` figures."""
    from concurrent.futures import ProcessPoolExecutor

    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        rows = list(pool.map(certify_one, BUNDLED_STRATEGIES))
    return time.perf_counter() - start, rows


def certify_seconds(source: Path, target: str = "mcs_reference:OpenAIChatStrategy",
                    clauses: tuple = ()) -> tuple[float, dict[str, tuple[float, int]]]:
    """CPU seconds of `mcs-conformance certify TARGET --profile ci --seed 0` run from the
    source tree at `source`, in a child process (user plus system time), and each clause's
    (seconds, examples) from its report; `clauses` narrows the run to those."""
    env = {**os.environ, "PYTHONPATH": str(source), "CI": "true"}
    with tempfile.TemporaryDirectory() as out:
        before = os.times()
        subprocess.run([sys.executable, "-m", "mcs_conformance.cli", "certify", target,
                        "--profile", "ci", "--seed", "0", "--out", out,
                        *(f"--clause={clause}" for clause in clauses)],
                       cwd=source, env=env, check=True, capture_output=True)
        after = os.times()
        lines = [json.loads(line) for line in Path(out, "report.jsonl").read_text("utf-8").splitlines()]
    clauses = {line["clause"]: (line["seconds"], line["examples"]) for line in lines
               if line["kind"] == "clause" and line.get("examples")}
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return cpu, clauses


def _compile(tree: Path) -> None:
    """Write the bytecode of a tree's packages: without it (a fresh worktree, a changed
    module, PYTHONDONTWRITEBYTECODE set) every run compiles them from source again."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "mcs_conformance"),
                    str(tree / "mcs_reference")], check=True, capture_output=True)


def _rate(clauses: dict[str, tuple[float, int]], ids: set) -> float:
    """Examples a second over the clauses `ids`, from their reports' own timings."""
    return sum(clauses[c][1] for c in ids) / sum(clauses[c][0] for c in ids)


def against_rows(commit: str, repeats: int = 3) -> list[str]:
    """Certify `mcs_reference:OpenAIChatStrategy` at ci from this tree and from `commit`
    (a temporary worktree), in turns, each side keeping its best: the ratio issue 13 asks,
    for the whole command and for the clauses both trees run (examples a second)."""
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), commit],
                       cwd=here, check=True)
        try:
            for tree in (old, here):  # bytecode compiled, as an install has it, on both sides
                _compile(tree)
            runs_old, runs_new, runs_same = [], [], []
            for _ in range(repeats):
                runs_old.append(certify_seconds(old))
                runs_new.append(certify_seconds(here))
                shared = set(runs_old[0][1]) & set(runs_new[0][1])
                runs_same.append(certify_seconds(here, clauses=tuple(sorted(shared))))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=here, check=True)
    best_old, best_new = min(cpu for cpu, _ in runs_old), min(cpu for cpu, _ in runs_new)
    best_same = min(cpu for cpu, _ in runs_same)
    rate_old = max(_rate(clauses, shared) for _, clauses in runs_old)
    rate_new = max(_rate(clauses, shared) for _, clauses in runs_new)
    clauses_old, clauses_new = len(runs_old[0][1]), len(runs_new[0][1])
    return [
        row(f"certify OpenAIChatStrategy (ci, seed 0), CPU seconds at {commit} "
            f"({clauses_old} clauses)", best_old, "report", True),
        row(f"certify OpenAIChatStrategy (ci, seed 0), CPU seconds now ({clauses_new} clauses)",
            best_new, "report", True),
        row(f"whole command speed-up over {commit}", best_old / best_new, ">= 3", best_old / best_new >= 3),
        row(f"CPU seconds now, certifying only the {len(shared)} clauses both run", best_same,
            "report", True),
        row(f"same clauses, whole command speed-up over {commit}", best_old / best_same, ">= 3",
            best_old / best_same >= 3),
        row(f"examples/s at {commit} over the {len(shared)} clauses both run", rate_old, "report", True),
        row(f"examples/s now over the same {len(shared)} clauses", rate_new, "report", True),
        row(f"examples/s speed-up over {commit}", rate_new / rate_old, ">= 3", rate_new / rate_old >= 3),
    ]


def row(figure: str, value: float, target: str, ok: bool) -> str:
    return f"| {figure} | {value:,.2f} | {target} | {'yes' if ok else 'NO'} |"


def growth_rows(limit: float, repeats: int = 9) -> tuple[list[str], bool]:
    lines, all_ok = [], True
    for wire in streams.WIRES:
        for driver in (False, True):
            ratio = growth(wire, driver=driver, repeats=repeats)
            ok = ratio <= limit
            all_ok &= ok
            who = "buffer + driver" if driver else "buffer"
            lines.append(row(f"growth 10 000 / 100 chunks, {wire}, {who}", ratio, f"<= {limit}", ok))
    return lines, all_ok


def floor_rows() -> tuple[list[str], bool]:
    """One row per wire: json.loads alone and json.loads + add, per chunk, and their ratio."""
    lines = ["| wire | json.loads, µs/chunk | json.loads + add, µs/chunk | ratio | target | met |",
             "| --- | ---: | ---: | ---: | --- | --- |"]
    all_ok = True
    for wire, (floor, ours) in floor_costs(list(streams.WIRES)).items():
        target = FLOOR_TARGETS.get(wire, FLOOR_TARGET)
        ok = ours / floor <= target
        all_ok &= ok
        lines.append(f"| {wire} | {floor * 1e6:.2f} | {ours * 1e6:.2f} | {ours / floor:.2f} "
                     f"| <= {target} | {'yes' if ok else 'NO'} |")
    return lines, all_ok


def reassembly_rows() -> list[str]:
    lines = []
    for wire, (floor, ours) in floor_costs(list(streams.WIRES)).items():
        target = FLOOR_TARGETS.get(wire, FLOOR_TARGET)
        lines.append(row(f"cost per chunk over json.loads, {wire}", ours / floor, f"<= {target}",
                         ours / floor <= target))
    for n, target in ((1000, 10.0), (10_000, 30.0)):
        for wire, sdk, name in (("openai-chat", sdk_openai, "openai ChatCompletionStreamState"),
                                ("anthropic-messages", sdk_anthropic, "anthropic accumulate_event")):
            speed = sdk_speedup(wire, sdk, n)
            lines.append(row(f"speed over {name}, {n:,} chunks", speed, f">= {target:g}", speed >= target))
    more, _ = growth_rows(1.3)
    lines += more
    for wire in ("openai-chat", "anthropic-messages", "openai-responses"):
        ratio = memory_ratio(wire)
        lines.append(row(f"peak memory over message size, {wire}, 1 MB", ratio, "<= 4", ratio <= 4))
    return lines


def kit_rows() -> list[str]:
    wall, rows = kit_speed()
    lines = []
    for target, seconds, examples, drawn in rows:
        speed = examples / seconds
        lines.append(row(f"certify {target} (ci): examples per second ({examples} examples)",
                         speed, "report", True))
        lines.append(row(f"certify {target} (ci): examples per second over cases drawn alone",
                         speed / drawn, "report", True))
    target, seconds, examples, _ = certify_one(BUNDLED_STRATEGIES[0])
    lines.append(row(f"certify {target} (ci) on one process, seconds ({examples} examples)",
                     seconds, "report", True))
    lines.append(row("certify every bundled strategy (ci) on 2 processes, seconds in all",
                     wall, "< 120", wall < 120))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="growth ratios only, failing above 2 (CI)")
    parser.add_argument("--floor", action="store_true",
                        help="only the cost per chunk over json.loads, every wire (under a minute)")
    parser.add_argument("--no-kit", action="store_true", help="skip the kit's certification timing")
    parser.add_argument("--kit-only", action="store_true", help="only the kit's certification timing")
    parser.add_argument("--against", metavar="COMMIT",
                        help="only: certify speed now over COMMIT's, timed in turns in this run")
    args = parser.parse_args(argv)
    header = ["| figure | value | target | met |", "| --- | ---: | --- | --- |"]
    if args.against:
        lines = against_rows(args.against)
        print("\n".join(header + lines))
        return 0 if all(line.endswith("| yes |") for line in lines) else 1
    if args.floor:
        lines, ok = floor_rows()
        print("\n".join(lines))
        return 0 if ok else 1
    if args.quick:
        lines, ok = growth_rows(2.0, repeats=5)  # fewer repeats: CI runs it in the suite
        print("\n".join(header + lines))
        return 0 if ok else 1
    lines = [] if args.kit_only else reassembly_rows()
    if not args.no_kit:
        lines += kit_rows()
    print("\n".join(header + lines))
    return 0 if all(line.endswith("| yes |") for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
