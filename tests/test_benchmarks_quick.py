"""The benchmark's CI mode: growth ratios (late chunk cost over early chunk cost), no timings.

Linear code gives about 1; quadratic code gives about 100, so the bound of 2 leaves room for
a noisy machine without letting a rescan per chunk through.
"""
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
