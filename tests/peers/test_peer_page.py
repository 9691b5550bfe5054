"""The peer matrix's results file and page: the schema accepts what the runner writes and
refuses what it must not; the page shows each wire's compatibility grid (library × server)
and clause matrix (own shape, then the worst over the servers), n/a never as a pass, the
peers not run, each finding (✗) with its stream and upstream, and notes (⚠) apart."""
import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "peers"))
from matrix import page, results  # noqa: E402

ORDER = ["client.calls", "client.text", "client.message", "client.truncated"]


def row(peer, wire, quirks, **changes):
    base = {"peer": peer, "version": "1.2.3", "language": "python", "wire": wire,
            "quirks": quirks, "verdicts": {"client.calls": "passed", "client.text": "passed",
                                           "client.message": "n/a",
                                           "client.truncated": "passed"},
            "findings": [], "seconds": 12.5}
    base.update(changes)
    return base


def fixture_rows():
    finding = {"clause": "client.truncated", "quirks": ["sse-crlf"],
               "corpus": "peers/findings/acme/openai-chat/truncated--openai-chat--quirks-vllm.sse",
               "reason": "the body stopped after 80 bytes", "note": None,
               "severity": "false-success"}
    failing = row("acme", "openai-chat", "vllm", findings=[finding],
                  verdicts={"client.calls": "passed", "client.text": "passed",
                            "client.message": "n/a", "client.truncated": "failed"},
                  speed={"wire": "openai-chat", "ratio": 3.5, "growth": 1.1, "seconds": 0.7,
                         "problem": None})
    return [row("mcs-reference", "openai-chat", "none"), row("mcs-reference", "openai-chat", "vllm"),
            row("acme", "openai-chat", "none"), failing,
            row("zeta", "ollama-chat", "none", status="not run", verdicts={}),
            row("zeta", "ollama-chat", "ollama", status="not run", verdicts={})]


def test_the_schema_accepts_the_runners_rows():
    assert results.problems(fixture_rows()) == []


@pytest.mark.parametrize("path, value", [
    (("verdicts", "client.calls"), "maybe"),
    (("quirks",), "Not A Mode"),
    (("wire",), "text"),
    (("findings",), [{"clause": "client.calls", "quirks": []}]),
])
def test_the_schema_refuses_a_bad_row(path, value):
    rows = fixture_rows()
    target = rows[0]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    found = results.problems(rows)
    assert found and found[0].startswith("0/")


def test_check_names_the_file_and_the_row():
    rows = fixture_rows()
    del rows[1]["seconds"]
    with pytest.raises(results.ResultsError, match=r"results\.json: 1: 'seconds' is a required"):
        results.check(rows, Path("results.json"))


def test_one_clause_matrix_per_wire_own_shape_then_the_servers():
    text = page.render(fixture_rows(), {}, ORDER)
    assert "### openai-chat: clauses" in text and "### ollama-chat: clauses" in text
    assert "### anthropic-messages" not in text  # no peer declares it here
    header = next(line for line in text.splitlines() if line.startswith("| peer |"))
    assert header == "| peer | `calls` | `text` | `message` | `truncated` | speed |"
    acme = [line for line in text.splitlines() if line.startswith("| acme 1.2.3 |")]
    anchor = "#acme-clienttruncated-on-openai-chat"
    assert f"| acme 1.2.3 | ✓ ✓ | ✓ ✓ | n/a n/a | ✓ [✗]({anchor}) | ×3.5, growth 1.1 |" in acme
    assert "| zeta 1.2.3 (not run) | · · | · · | · · | · · |" in text


def test_the_grid_has_a_column_per_server_profile_and_the_worst_verdict_per_cell():
    text = page.render(fixture_rows(), {}, ORDER)
    header = next(line for line in text.splitlines() if line.startswith("| library |"))
    assert header.startswith("| library | own shape | `openai` | `azure-openai` | `vllm` |")
    acme = next(line for line in text.splitlines() if line.startswith("| acme 1.2.3 |")).split(" | ")
    columns = header.split(" | ")
    assert acme[columns.index("own shape")] == "✓"
    assert acme[columns.index("`vllm`")] == "[✗](#acme-clienttruncated-on-openai-chat)"
    assert acme[columns.index("`groq`")] == "·"  # not run against that server


def test_a_note_is_a_warning_in_its_own_section():
    rows = fixture_rows()
    rows[3]["verdicts"]["client.truncated"] = "noted"
    rows[3]["findings"][0]["severity"] = "strictness"
    text = page.render(rows, {}, ORDER)
    anchor = "#acme-clienttruncated-on-openai-chat-note"
    assert f"[⚠]({anchor})" in text and "## Findings" not in text
    assert "## Notes (⚠: strictness and fidelity)" in text
    assert "#### acme: `client.truncated` on openai-chat (note)" in text
    assert "- **acme** 1.2.3 (python): no bug found" in text and "Notes (⚠) on `truncated`" in text


def test_a_finding_without_a_note_shows_the_kits_reason_and_no_upstream():
    text = page.render(fixture_rows(), {}, ORDER)
    assert "#### acme: `client.truncated` on openai-chat" in text
    assert ("- Against server `vllm` (false-success): the minimal counterexample holds quirks "
            "`sse-crlf`; stream "
            "[`peers/findings/acme/openai-chat/truncated--openai-chat--quirks-vllm.sse`]"
            "(../peers/findings/acme/openai-chat/truncated--openai-chat--quirks-vllm.sse)."
            in text)
    assert f"- Upstream: {page.NOT_REPORTED}." in text
    assert "The kit's reason: the body stopped after 80 bytes." in text


def test_notes_give_the_paragraph_the_upstream_link_and_the_summary():
    notes = {"acme": {"summary": "trusts the end of the body.",
                      "findings": {"client.truncated@openai-chat": {
                          "paragraph": "It stops reading at EOF without [DONE].",
                          "upstream": "https://example.org/acme/issues/7"}}}}
    text = page.render(fixture_rows(), notes, ORDER)
    assert "It stops reading at EOF without [DONE]." in text
    assert "- Upstream: <https://example.org/acme/issues/7>." in text
    assert "- **acme** 1.2.3 (python): trusts the end of the body." in text


def test_summaries_say_what_fails_where_and_who_did_not_run():
    text = page.render(fixture_rows(), {}, ORDER)
    assert ("- **acme** 1.2.3 (python): fails `truncated` (openai-chat: server `vllm`)." in text)
    assert "- **mcs-reference** 1.2.3 (python): no bug found in any client clause" in text
    assert "- **zeta** 1.2.3 (python): not run yet." in text


def test_an_unconfirmed_failure_is_not_a_finding_link():
    rows = fixture_rows()
    rows[3]["findings"], rows[3]["unconfirmed"] = [], ["client.truncated"]
    text = page.render(rows, {}, ORDER)
    assert "✓ ✗? |" in text and "## Findings" not in text


def test_merged_replaces_rows_of_the_same_peer_wire_and_mode():
    old = fixture_rows()
    new = [copy.deepcopy(old[2])]
    new[0]["seconds"] = 1.0
    out = results.merged(old, new)
    assert len(out) == len(old)
    assert [r["seconds"] for r in out if r["peer"] == "acme" and r["quirks"] == "none"] == [1.0]


def test_the_page_orders_clauses_as_the_kits_catalogue():
    order = page.clause_order()
    assert order[:2] == ["client.calls", "client.text"]
    assert all(clause.startswith("client.") for clause in order)


def test_a_peer_too_slow_to_time_says_so_in_its_speed_cell():
    rows = fixture_rows()
    rows[3]["speed"] = {"wire": "openai-chat", "ratio": None, "growth": None, "seconds": None,
                        "problem": "more than 120 s for 10000 chunks (4.1 s for 1000)"}
    text = page.render(rows, {}, ORDER)
    assert "| more than 120 s for 10000 chunks (4.1 s for 1000) |" in text


def test_two_runs_failing_one_clause_share_one_section():
    rows = fixture_rows()
    rows[2]["verdicts"]["client.truncated"] = "failed"
    rows[2]["findings"] = [{**rows[3]["findings"][0], "quirks": [],
                            "corpus": "peers/findings/acme/raw.body", "note": "kept as a raw body"}]
    text = page.render(rows, {}, ORDER)
    assert text.count("#### acme: `client.truncated` on openai-chat") == 1
    assert ("- Against the provider's own shape (false-success): the minimal counterexample "
            "holds quirks none (the provider's own shape); stream "
            "[`peers/findings/acme/raw.body`](../peers/findings/acme/raw.body) (kept as a raw "
            "body).") in text
    assert "- Against server `vllm` (false-success):" in text


def test_a_large_speed_ratio_is_a_plain_number():
    rows = fixture_rows()
    rows[3]["speed"] = {"wire": "openai-chat", "ratio": 145.9, "growth": None, "seconds": 9.0,
                        "problem": None}
    assert "| ×146 |" in page.render(rows, {}, ORDER)


def test_a_speed_note_follows_the_summary():
    notes = {"acme": {"speed": "summing with + is quadratic."}}
    text = page.render(fixture_rows(), notes, ORDER)
    assert "(openai-chat: server `vllm`). Speed: summing with + is quadratic." in text


def test_each_cause_gets_the_paragraph_written_for_its_quirks():
    rows = fixture_rows()
    rows[2]["verdicts"]["client.truncated"] = "failed"
    rows[2]["findings"] = [{**rows[3]["findings"][0], "quirks": [], "reason": "own reason"}]
    notes = {"acme": {"findings": {"client.truncated@openai-chat": [
        {"quirks": ["sse-crlf"], "paragraph": "It misreads CRLF."},
        {"quirks": [], "paragraph": "It stops at EOF.", "searched": "acme eof"}]}}}
    text = page.render(rows, notes, ORDER)
    section = text[text.index("#### acme: `client.truncated`"):]
    own, crlf = section.index("It stops at EOF."), section.index("It misreads CRLF.")
    assert section.index("- Against the provider's own shape") < own < \
        section.index("- Against server `vllm`") < crlf
    assert f"- Upstream: {page.NOT_REPORTED} (searched: acme eof)." in section
    assert "own reason" not in section  # a written paragraph replaces the kit's reason
