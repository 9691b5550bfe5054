"""The worked third-party example under examples/mistral-codec: its codec on real-world shapes
of Mistral's `[TOOL_CALLS]` text, its certification by the command, and its CI workflow."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcs_reference import ExtractedCall, TextStrategy, ToolCallRecord
from mcs_conformance.certify import Report

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mistral-codec"
SOURCE = EXAMPLE / "src"
TARGET = "mcs_example_mistral:mistral_strategy"

try:  # installed with `pip install -e examples/mistral-codec`, or straight from its source
    import mcs_example_mistral
except ModuleNotFoundError:
    sys.path.insert(0, str(SOURCE))
    import mcs_example_mistral

from mcs_example_mistral import MistralCodec, mistral_strategy  # noqa: E402

codec = MistralCodec()


def calls(text: str) -> list[tuple]:
    return [(c.name, c.arguments, c.id, c.error) for c in codec.decode(text)]


# -- decoding the shapes Mistral models write ------------------------------------------------
def test_pre_v11_array_with_arguments_before_the_name():
    text = '[TOOL_CALLS] [{"arguments":{"name": "Ada Lovelace"}, "name": "lookup_person"}]'
    assert calls(text) == [("lookup_person", {"name": "Ada Lovelace"}, None, None)]


def test_pre_v11_content_before_the_marker():
    text = 'Let me compute that.[TOOL_CALLS] [{"name": "subtract", "arguments":{"x": 9, "y": 4}}]'
    assert calls(text) == [("subtract", {"x": 9, "y": 4}, None, None)]


def test_pre_v11_parallel_calls_in_one_array_with_ids():
    text = ('[TOOL_CALLS] [{"name": "divide", "arguments": {"x": 7.25, "y": 2}, "id": "a1B2c3D4e"},'
            ' {"name": "get_forecast", "arguments":{"town": "Brest", "days": 3}, "id": "Z9y8X7w6v"}]')
    assert calls(text) == [("divide", {"x": 7.25, "y": 2}, "a1B2c3D4e", None),
                           ("get_forecast", {"town": "Brest", "days": 3}, "Z9y8X7w6v", None)]


def test_v11_name_then_arguments_with_the_marker_repeated():
    text = '[TOOL_CALLS]subtract{"x": 9.5, "y": 1}[TOOL_CALLS]power{"base": 2, "exp": 10}'
    assert calls(text) == [("subtract", {"x": 9.5, "y": 1}, None, None),
                           ("power", {"base": 2, "exp": 10}, None, None)]


def test_v11_after_prose_and_with_a_marker_inside_an_argument():
    text = 'Checking.[TOOL_CALLS]echo{"text": "[TOOL_CALLS]x{}"} Done.'
    assert calls(text) == [("echo", {"text": "[TOOL_CALLS]x{}"}, None, None)]


def test_text_after_the_array_is_prose():
    text = '[TOOL_CALLS] [{"name": "ping", "arguments": {}}] and {"name": "not_a_call"} [1, 2]'
    assert calls(text) == [("ping", {}, None, None)]


@pytest.mark.parametrize("text", [
    "", "No tools needed: 2 + 2 = 4.", '{"name": "x", "arguments": {}}', "[1, 2] {}",
    "The [TOOL_CALLS] token starts a call.", "[TOOL_CALLS] [1, 2]", "[TOOL_CALLS]note: soon",
])
def test_prose_holds_no_call(text):
    assert codec.decode(text) == []


def test_arguments_as_a_json_text_are_read():
    assert calls('[TOOL_CALLS] [{"name": "f", "arguments": "{\\"k\\": true}"}]') == [
        ("f", {"k": True}, None, None)]


@pytest.mark.parametrize("text, name", [
    ('[TOOL_CALLS] [{"name": "f", "arguments": "not json"}]', "f"),
    ('[TOOL_CALLS] [{"name": "f", "arguments": [1, 2]}]', "f"),
    ('[TOOL_CALLS] [{"name": "f", "arguments": {"k": }}]', "f"),
    ('[TOOL_CALLS] [{"arguments": {}}]', ""),
    ('[TOOL_CALLS]f{"k": 1', "f"),
    ('[TOOL_CALLS] [{"name": "f", "arguments": {"city": "Par', "f"),
])
def test_malformed_calls_surface_as_error_calls(text, name):
    found = codec.decode(text)
    assert len(found) == 1
    assert found[0].name == name and found[0].arguments == {} and found[0].error


def test_a_broken_call_does_not_hide_the_next_one():
    text = '[TOOL_CALLS] [{"name": "a", "arguments": {"k": }}, {"name": "b", "arguments": {}}]'
    assert [(c.name, c.error is None) for c in codec.decode(text)] == [("a", False), ("b", True)]


# -- mid-stream --------------------------------------------------------------------------------
def test_peek_name_follows_the_call_being_written():
    text = '[TOOL_CALLS] [{"name": "first", "arguments": {"name": "x"}}, {"name": "second", "arguments": {}}]'
    seen = {codec.peek_name(text[:end]) for end in range(len(text) + 1)}
    assert seen == {None, "first", "second"}
    assert codec.peek_name(text[:text.index('"second"') + 4]) is None  # name not complete yet
    assert codec.peek_name(text[:text.index('"second"') + 8]) == "second"
    assert codec.peek_name(text[:text.index('"x"')]) == "first"  # a "name" key inside arguments


def test_the_strategy_reads_a_stream_cut_anywhere():
    strategy = mistral_strategy()
    text = 'Sure.[TOOL_CALLS] [{"name": "get_forecast", "arguments": {"town": "Brest"}}]'
    for cut in range(len(text) + 1):
        acc = strategy.new_accumulator()
        shown = strategy.accumulate(acc, text[:cut]) + strategy.accumulate(acc, text[cut:])
        assert shown == text
        message = strategy.as_message(acc)
        assert strategy.extract(message) == [ExtractedCall("get_forecast", {"town": "Brest"})]


# -- writing -----------------------------------------------------------------------------------
def test_encode_writes_the_pre_v11_array_and_decodes_back():
    written = [ExtractedCall("a", {"q": "é \"[TOOL_CALLS]\" }]"}), ExtractedCall("b", {}, "id7")]
    text = codec.encode(written)
    assert text.startswith('[TOOL_CALLS] [{"name": "a", "arguments": {"q": "é')
    assert codec.decode(f"prose {{x}} {text} more ]") == written


def test_encode_keeps_the_raw_arguments_of_an_error_call():
    broken = ExtractedCall("f", {}, None, "arguments are not valid JSON", "{oops")
    assert json.loads(codec.encode([broken])[len("[TOOL_CALLS] "):]) == [
        {"name": "f", "arguments": "{oops"}]


def test_results_are_written_as_tool_results_blocks():
    records = [ToolCallRecord("add", {"a": 1}, result={"sum": 3}, tool_call_id="a1B2c3D4e"),
               ToolCallRecord("add", {}, error="missing a")]
    text = codec.encode_results(records)
    blocks = re.findall(r"\[TOOL_RESULTS\](.*?)\[/TOOL_RESULTS\]", text)
    assert [json.loads(b) for b in blocks] == [
        {"name": "add", "call_id": "a1B2c3D4e", "content": {"sum": 3}},
        {"name": "add", "error": "missing a"}]


def test_the_factory_is_a_text_strategy_named_after_the_codec():
    strategy = mistral_strategy()
    assert isinstance(strategy, TextStrategy) and isinstance(strategy.codec, MistralCodec)
    assert strategy.name == "mistral"


# -- certified by the command, as its README says ------------------------------------------
def test_the_example_is_certified_by_the_command(tmp_path, share_caches):
    share_caches(tmp_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE), env.get("PYTHONPATH")]))
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mcs_conformance.cli", "certify", TARGET,
         "--profile", "dev", "--seed", "11", "--out", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr + (out / "summary.md").read_text()
    report = Report.from_jsonl((out / "report.jsonl").read_text("utf-8"))
    assert report.certified and report.header.wire == "text" and report.header.strategy == "mistral"
    verdicts = {r.clause: r.verdict for r in report.results}
    assert verdicts["codec.round-trip"] == verdicts["codec.split-markers"] == "passed"
    assert verdicts["extract.malformed"] == verdicts["extract.forming"] == "passed"


# -- the example's own files ---------------------------------------------------------------
def test_the_readme_shows_install_test_and_certify_commands():
    readme = (EXAMPLE / "README.md").read_text("utf-8")
    assert "pip install -e examples/mistral-codec" in readme
    assert f"pytest --mcs-strategy={TARGET}" in readme
    assert f"mcs-conformance certify {TARGET} --out report" in readme


def test_the_package_metadata_names_its_source_folder():
    text = (EXAMPLE / "pyproject.toml").read_text("utf-8")
    assert 'name = "mcs-example-mistral"' in text and 'where = ["src"]' in text
    assert (SOURCE / "mcs_example_mistral" / "__init__.py").is_file()


WORKFLOW = EXAMPLE / ".github" / "workflows" / "certify.yml"


def _steps(text: str) -> list[str]:
    """The workflow's steps as text blocks (a structural read: no YAML library needed)."""
    body = text.split("    steps:\n", 1)[1]
    return ["- " + block for block in re.split(r"\n      - ", "\n" + body)[1:]]


def test_the_workflow_certifies_uploads_summarises_and_fails_when_refused():
    text = WORKFLOW.read_text("utf-8")
    assert "\t" not in text
    for number, line in enumerate(text.splitlines(), 1):
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0, f"line {number}: odd indentation"
    assert re.search(r"^on:\n", text, re.M) and re.search(r"^jobs:\n  certify:\n", text, re.M)
    steps = _steps(text)
    uses = [re.search(r"uses: (\S+)", s).group(1) for s in steps if "uses:" in s]
    assert uses == ["actions/checkout@v4", "actions/setup-python@v5", "actions/upload-artifact@v4"]
    certify = next(s for s in steps if "mcs-conformance certify" in s)
    assert '"$TARGET"' in certify and "--out report" in certify and "id: certify" in certify
    upload = next(s for s in steps if "upload-artifact" in s)
    assert "path: report/" in upload and "if: always()" in upload
    summary = next(s for s in steps if "GITHUB_STEP_SUMMARY" in s)
    assert 'cat report/summary.md >> "$GITHUB_STEP_SUMMARY"' in summary
    assert "exit 1" in steps[-1] and "steps.certify.outcome != 'success'" in steps[-1]
    assert f"TARGET: {TARGET}" in text
    if importlib.util.find_spec("yaml") is not None:  # a real parse where PyYAML happens to be
        import yaml

        flow = yaml.safe_load(text)
        assert [s.get("uses") for s in flow["jobs"]["certify"]["steps"] if "uses" in s] == uses
