"""The benchmark's CI mode: growth ratios (late chunk cost over early chunk cost), no timings.

Linear code gives about 1; quadratic code gives about 100, so the bound of 2 leaves room for
a noisy machine without letting a rescan per chunk through.
"""
import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run as bench  # noqa: E402
import streams  # noqa: E402

from mcs_reference import LLMStreamBuffer  # noqa: E402


def test_quick_mode_passes_for_the_reference(capsys):
    assert bench.main(["--quick"]) == 0
    table = capsys.readouterr().out
    assert table.count("| yes |") == 2 * len(streams.WIRES)


def test_growth_measure_catches_a_rescan_per_chunk(monkeypatch):
    """The measure must be able to fail: a buffer that re-joins the message on every add."""
    original = LLMStreamBuffer.add

    def add_and_rescan(self, chunk):
        delta = original(self, chunk)
        self.as_dict()  # assembles the whole message: O(message) per chunk
        return delta

    monkeypatch.setattr(LLMStreamBuffer, "add", add_and_rescan)
    assert bench.growth("openai-chat", driver=False, repeats=3) > 2


@pytest.mark.parametrize("wire", sorted(streams.WIRES))
def test_benchmark_streams_are_valid_streams(wire):
    buf = bench.feed(streams.WIRES[wire](50))
    assert buf.is_done() and buf.as_dict()


def test_the_floor_table_holds_each_wire_to_its_target(monkeypatch):
    """OpenAI Chat is held to 1.45, every other wire to 1.5 (timings stubbed: no timing here)."""
    ratios = {wire: 1.47 for wire in streams.WIRES}
    monkeypatch.setattr(bench, "floor_costs",
                        lambda wires: {wire: (1.0, ratios[wire]) for wire in wires})
    lines, ok = bench.floor_rows()
    rows = {line.split(" | ")[0].strip("| "): line for line in lines[2:]}
    assert set(rows) == set(streams.WIRES) and not ok
    assert rows["openai-chat"].endswith("| <= 1.45 | NO |")
    assert all(rows[wire].endswith("| <= 1.5 | yes |") for wire in rows if wire != "openai-chat")


@pytest.fixture
def frozen_heap():
    """The benchmark collects garbage before each timing, in its own small process; here the
    objects the suite made since its collection are set aside too (gc.freeze; tests/conftest.py
    froze the rest), or each collection walks them. They stay frozen, as the rest does."""
    gc.freeze()


def test_the_floor_costs_are_measured_for_every_wire(frozen_heap):
    costs = bench.floor_costs(list(streams.WIRES), n=20, rounds=1)
    assert set(costs) == set(streams.WIRES)
    assert all(0 < floor and 0 < ours for floor, ours in costs.values())
