"""Client-run and provider-run calls, per wire (issue 14).

Client-run calls are extracted in order with their kind; provider-run blocks and items are
never extracted and stay in the history as they came; each result goes back as its kind's
output item. Messages here hold one instance of every type of the installed SDKs' unions,
validated against the SDK types, so a shape that drifts from the SDK fails here first.
"""
from __future__ import annotations

import copy
import typing
from pathlib import Path

import pydantic
import pytest
from anthropic.types import ContentBlock, Message, MessageParam
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import Response, ResponseInputParam, ResponseOutputItem

from mcs_reference import (
    AnthropicMessagesStrategy,
    BaseDriver,
    ExtractedCall,
    OllamaChatStrategy,
    OpenAIChatStrategy,
    OpenAIResponsesStrategy,
    ToolCallRecord,
)
from mcs_reference.errors import EventOutOfOrder, MalformedChunk

RESPONSES = OpenAIResponsesStrategy()
ANTHROPIC = AnthropicMessagesStrategy()
CHAT = OpenAIChatStrategy()
INPUT_ITEMS = pydantic.TypeAdapter(ResponseInputParam)
ARCHITECTURE = Path(__file__).parents[2] / "docs" / "architecture.md"


def union_types(union: typing.Any) -> set[str]:
    """The `type` literals of every member of an SDK union (read at run time)."""
    members = typing.get_args(typing.get_args(union)[0]) if typing.get_origin(union) is \
        typing.Annotated else typing.get_args(union)
    return {typing.get_args(member.model_fields["type"].annotation)[0] for member in members}


# -- ExtractedCall -------------------------------------------------------------------------
def test_extracted_call_grows_at_the_end_and_old_calls_are_unchanged():
    old = ExtractedCall("f", {"a": 1}, "call_1", None, None)
    assert old == ExtractedCall(name="f", arguments={"a": 1}, id="call_1")
    assert (old.kind, old.input) == ("function", None)
    assert old != ExtractedCall("f", {"a": 1}, "call_1", kind="custom")
    assert ToolCallRecord("f", {}, "ok", None, "call_1").kind == "function"


# -- OpenAI Responses ----------------------------------------------------------------------
SCREEN = {"type": "computer_screenshot", "image_url": "https://example.test/s.png"}
CLICK = {"type": "click", "button": "left", "x": 10, "y": 20}
EXEC = {"type": "exec", "command": ["ls", "-l"], "env": {}}
SHELL = {"commands": ["pwd"], "timeout_ms": 1000, "max_output_length": 4096}
PATCH = {"type": "create_file", "path": "a.txt", "diff": "+hello"}
EXIT0 = {"type": "exit", "exit_code": 0}
# One instance of every ResponseOutputItem type, in one response.
EVERY_ITEM = [
    {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Working.", "annotations": []}]},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "id": "fc_1", "call_id": "call_f", "name": "get_capital",
     "arguments": '{"country": "France"}', "status": "completed"},
    {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "write_sql",
     "input": "SELECT 1"},
    {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "action": CLICK,
     "pending_safety_checks": [], "status": "completed"},
    {"type": "local_shell_call", "id": "ls_1", "call_id": "call_ls", "action": EXEC,
     "status": "completed"},
    {"type": "shell_call", "id": "sh_1", "call_id": "call_sh", "action": SHELL,
     "environment": {"type": "local"}, "status": "completed"},
    {"type": "apply_patch_call", "id": "ap_1", "call_id": "call_ap", "operation": PATCH,
     "status": "completed"},
    # provider-run: hosted tools, MCP, programs, and calls the provider answered itself
    {"type": "web_search_call", "id": "ws_1", "status": "completed",
     "action": {"type": "search", "query": "weather"}},
    {"type": "file_search_call", "id": "fs_1", "queries": ["q"], "status": "completed"},
    {"type": "code_interpreter_call", "id": "ci_1", "code": "1+1", "container_id": "cntr",
     "outputs": [], "status": "completed"},
    {"type": "image_generation_call", "id": "ig_1", "result": "aGk=", "status": "completed"},
    {"type": "mcp_list_tools", "id": "ml_1", "server_label": "srv", "tools": []},
    {"type": "mcp_call", "id": "mcp_1", "name": "lookup", "server_label": "srv",
     "arguments": "{}", "output": "found", "status": "completed"},
    {"type": "program", "id": "pg_1", "call_id": "call_pg", "code": "1", "fingerprint": "fp"},
    {"type": "program_output", "id": "po_1", "call_id": "call_pg", "result": "1",
     "status": "completed"},
    {"type": "tool_search_call", "id": "ts_1", "call_id": "call_ts", "arguments": {"q": "x"},
     "execution": "server", "status": "completed"},
    {"type": "tool_search_output", "id": "to_1", "call_id": "call_ts", "execution": "server",
     "status": "completed", "tools": []},
    {"type": "additional_tools", "id": "at_1", "role": "developer", "tools": []},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA"},
    {"type": "shell_call", "id": "sh_2", "call_id": "call_hosted", "action": SHELL,
     "environment": {"type": "container_reference", "container_id": "cntr"},
     "status": "completed"},
    {"type": "shell_call_output", "id": "sho_2", "call_id": "call_hosted", "status": "completed",
     "output": [{"stdout": "/", "stderr": "", "outcome": EXIT0}]},
    {"type": "function_call", "id": "fc_2", "call_id": "call_answered", "name": "by_program",
     "arguments": "{}", "status": "completed"},
    {"type": "function_call_output", "id": "fco_2", "call_id": "call_answered", "output": "2",
     "status": "completed"},
    # not calls: outputs of earlier turns echoed, and an approval the provider asks for
    {"type": "custom_tool_call_output", "id": "cto_1", "call_id": "call_old", "output": "x",
     "status": "completed"},
    {"type": "computer_call_output", "id": "cuo_1", "call_id": "call_old2", "output": SCREEN,
     "status": "completed"},
    {"type": "local_shell_call_output", "id": "call_old3", "output": "{}"},
    {"type": "apply_patch_call_output", "id": "apo_1", "call_id": "call_old4",
     "status": "completed"},
    {"type": "mcp_approval_request", "id": "mar_1", "name": "delete", "server_label": "srv",
     "arguments": "{}"},
    {"type": "mcp_approval_response", "id": "mrs_1", "approval_request_id": "mar_0",
     "approve": True},
]
RESPONSE = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
            "model": "gpt-test", "output": EVERY_ITEM, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": []}
CLIENT_CALLS = [
    ExtractedCall("get_capital", {"country": "France"}, "call_f"),
    ExtractedCall("write_sql", {}, "call_c", kind="custom", input="SELECT 1"),
    ExtractedCall("computer", {"action": CLICK, "pending_safety_checks": []}, "call_cu",
                  kind="computer"),
    ExtractedCall("local_shell", {"action": EXEC}, "call_ls", kind="local_shell"),
    ExtractedCall("shell", {"action": SHELL, "environment": {"type": "local"}}, "call_sh",
                  kind="shell"),
    ExtractedCall("apply_patch", {"operation": PATCH}, "call_ap", kind="apply_patch"),
]


def test_the_response_holds_every_output_item_type_of_the_sdk():
    Response.model_validate(RESPONSE)
    assert {item["type"] for item in EVERY_ITEM} == union_types(ResponseOutputItem)


def test_responses_extracts_client_run_calls_in_order_with_their_kind():
    assert RESPONSES.extract(RESPONSE) == CLIENT_CALLS


def test_every_output_item_and_block_type_is_in_the_architecture_table():
    """docs/architecture.md classifies every type of the installed SDKs' unions."""
    table = ARCHITECTURE.read_text()
    for kind in sorted(union_types(ResponseOutputItem) | union_types(ContentBlock)):
        assert f"| `{kind}` |" in table, f"{kind} is missing from the kinds table"


def test_responses_history_answers_each_kind_with_its_output_item():
    records = [
        ToolCallRecord("get_capital", {}, {"capital": "Paris"}, None, "call_f"),
        ToolCallRecord("write_sql", {}, "1 row", None, "call_c", "custom"),
        ToolCallRecord("computer", {}, SCREEN, None, "call_cu", "computer"),
        ToolCallRecord("local_shell", {}, {"stdout": "a.txt"}, None, "call_ls", "local_shell"),
        ToolCallRecord("shell", {}, "/home", None, "call_sh", "shell"),
        ToolCallRecord("apply_patch", {}, None, "no such file", "call_ap", "apply_patch"),
    ]
    snapshot = copy.deepcopy(RESPONSE)
    history = RESPONSES.result_messages(RESPONSE, records)
    assert RESPONSE == snapshot
    assert history[:len(EVERY_ITEM)] == EVERY_ITEM  # provider-run items stay as they are
    assert history[len(EVERY_ITEM):] == [
        {"type": "function_call_output", "call_id": "call_f", "output": '{"capital": "Paris"}'},
        {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1 row"},
        {"type": "computer_call_output", "call_id": "call_cu", "output": SCREEN},
        {"type": "local_shell_call_output", "id": "call_ls", "output": '{"stdout": "a.txt"}'},
        {"type": "shell_call_output", "call_id": "call_sh", "max_output_length": 4096,
         "output": [{"stdout": "/home", "stderr": "", "outcome": EXIT0}]},
        {"type": "apply_patch_call_output", "call_id": "call_ap", "status": "failed",
         "output": "Error: no such file"},
    ]
    INPUT_ITEMS.validate_python(history[len(EVERY_ITEM):])


def test_a_record_without_its_kind_takes_the_kind_of_the_call_it_answers():
    """Records written before kinds existed (kind "function") still answer a custom call
    with a custom_tool_call_output: the call in the message decides."""
    history = RESPONSES.result_messages(RESPONSE, [ToolCallRecord("write_sql", {}, "ok")])
    assert history[-1] == {"type": "custom_tool_call_output", "call_id": "call_c",
                           "output": "ok"}


@pytest.mark.parametrize("result, output", [
    ("https://example.test/x.png",
     {"type": "computer_screenshot", "image_url": "https://example.test/x.png"}),
    ({"type": "computer_screenshot", "file_id": "file_1"},
     {"type": "computer_screenshot", "file_id": "file_1"}),
])
def test_a_computer_result_is_a_screenshot(result, output):
    [item] = RESPONSES.result_messages(
        {"output": [EVERY_ITEM[4]]}, [ToolCallRecord("computer", {}, result, None, "call_cu")])[1:]
    assert item == {"type": "computer_call_output", "call_id": "call_cu", "output": output}


@pytest.mark.parametrize("result, contents", [
    ([{"stdout": "a", "stderr": "", "outcome": EXIT0}] * 2,
     [{"stdout": "a", "stderr": "", "outcome": EXIT0}] * 2),
    ({"stderr": "denied", "outcome": {"type": "exit", "exit_code": 2}},
     [{"stdout": "", "stderr": "denied", "outcome": {"type": "exit", "exit_code": 2}}]),
    (None, [{"stdout": "", "stderr": "", "outcome": EXIT0}]),
])
def test_a_shell_result_is_its_contents(result, contents):
    call = dict(EVERY_ITEM[6], action={"commands": ["pwd"]})
    [item] = RESPONSES.result_messages(
        {"output": [call]}, [ToolCallRecord("shell", {}, result, None, "call_sh")])[1:]
    assert item == {"type": "shell_call_output", "call_id": "call_sh", "output": contents}
    INPUT_ITEMS.validate_python([item])


def test_a_custom_call_whose_input_is_not_text_is_an_error_call():
    item = dict(EVERY_ITEM[3], input=["not", "text"])
    [call] = RESPONSES.extract({"output": [item]})
    assert (call.kind, call.input, call.arguments) == ("custom", None, {})
    assert "must be a string" in call.error


def test_the_forming_name_of_a_built_in_call_is_its_kind():
    assert RESPONSES.forming_name({"output": EVERY_ITEM[:5]}) == "computer"
    assert RESPONSES.forming_name({"output": EVERY_ITEM[:4]}) == "write_sql"


# -- OpenAI Chat ---------------------------------------------------------------------------
CUSTOM = {"id": "call_1", "type": "custom", "custom": {"name": "write_sql", "input": "SELECT 1"}}
FUNCTION = {"id": "call_2", "type": "function",
            "function": {"name": "get_capital", "arguments": '{"country": "Peru"}'}}
CHAT_MESSAGE = {"role": "assistant", "content": None, "refusal": None,
                "tool_calls": [CUSTOM, FUNCTION]}


def test_chat_custom_calls_keep_their_input_as_text():
    assert CHAT.extract(CHAT_MESSAGE) == [
        ExtractedCall("write_sql", {}, "call_1", kind="custom", input="SELECT 1"),
        ExtractedCall("get_capital", {"country": "Peru"}, "call_2")]
    assert CHAT.forming_name({"role": "assistant", "tool_calls": [FUNCTION, CUSTOM]}) == "write_sql"


def test_chat_custom_calls_are_answered_by_tool_messages():
    records = [ToolCallRecord("write_sql", {}, "1 row", None, "call_1", "custom"),
               ToolCallRecord("get_capital", {"country": "Peru"}, "Lima", None, "call_2")]
    history = CHAT.result_messages(CHAT_MESSAGE, records)
    assert history == [
        {"role": "assistant", "content": None, "tool_calls": [CUSTOM, FUNCTION]},
        {"role": "tool", "tool_call_id": "call_1", "content": "1 row"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Lima"},
    ]
    pydantic.TypeAdapter(list[ChatCompletionMessageParam]).validate_python(history)


def test_a_chat_custom_call_without_a_name_is_a_stream_error():
    with pytest.raises(MalformedChunk, match="custom tool call 'name'"):
        CHAT.extract({"role": "assistant", "tool_calls": [
            {"id": "c", "type": "custom", "custom": {"input": "x"}}]})


# -- Anthropic Messages --------------------------------------------------------------------
PROGRAMMATIC = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
# One instance of every ContentBlock type: only the two tool_use blocks are client-run.
EVERY_BLOCK = [
    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
    {"type": "redacted_thinking", "data": "opaque"},
    {"type": "text", "text": "Let me look.", "citations": None},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2",
     "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}},
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_3",
     "content": {"type": "code_execution_result", "stdout": "", "stderr": "", "return_code": 0,
                 "content": []}},
    {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_4",
     "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "",
                 "return_code": 0, "content": []}},
    {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_5",
     "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False}},
    {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_6",
     "content": {"type": "tool_search_tool_search_result", "tool_references": []}},
    {"type": "container_upload", "file_id": "file_1"},
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"},
     "caller": {"type": "direct"}},
    {"type": "tool_use", "id": "toolu_2", "name": "roll_die", "input": {},
     "caller": PROGRAMMATIC},
]
ANTHROPIC_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                     "content": EVERY_BLOCK, "stop_reason": "tool_use", "stop_sequence": None,
                     "usage": {"input_tokens": 1, "output_tokens": 1}}


def test_the_message_holds_every_content_block_type_of_the_sdk():
    Message.model_validate(ANTHROPIC_MESSAGE)
    assert {block["type"] for block in EVERY_BLOCK} == union_types(ContentBlock)


def test_anthropic_extracts_tool_use_only_programmatic_calls_included():
    assert ANTHROPIC.extract(ANTHROPIC_MESSAGE) == [
        ExtractedCall("get_weather", {"city": "Oslo"}, "toolu_1"),
        ExtractedCall("roll_die", {}, "toolu_2")]


def test_anthropic_history_keeps_server_blocks_and_answers_client_calls():
    records = [ToolCallRecord("get_weather", {}, "sunny", None, "toolu_1"),
               ToolCallRecord("roll_die", {}, 4, None, "toolu_2")]
    turn, results = ANTHROPIC.result_messages(ANTHROPIC_MESSAGE, records)
    assert turn["content"][3:11] == EVERY_BLOCK[3:11]  # provider-run blocks as they came
    assert turn["content"][-1]["caller"] == PROGRAMMATIC
    assert results == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "4"}]}
    pydantic.TypeAdapter(list[MessageParam]).validate_python([turn, results])


def test_server_tool_input_deltas_build_the_server_block_and_it_is_no_call():
    events = [
        {"type": "message_start", "message": dict(ANTHROPIC_MESSAGE, content=[],
                                                   stop_reason=None)},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                           "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"query": '}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '"weather"}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    acc = ANTHROPIC.new_accumulator()
    for event in events:
        ANTHROPIC.accumulate(acc, event)
    message = ANTHROPIC.as_message(acc)
    assert message["content"] == [{"type": "server_tool_use", "id": "srvtoolu_1",
                                   "name": "web_search", "input": {"query": "weather"}}]
    assert ANTHROPIC.extract(message) == [] and ANTHROPIC.forming_name_of(acc) is None


def test_a_beta_compaction_delta_replaces_the_summary():
    events = [
        {"type": "message_start", "message": dict(ANTHROPIC_MESSAGE, content=[])},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "compaction", "content": None, "encrypted_content": None}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "compaction_delta", "content": "Summary.", "encrypted_content": "e"}},
        {"type": "content_block_stop", "index": 0},
    ]
    acc = ANTHROPIC.new_accumulator()
    for event in events:
        ANTHROPIC.accumulate(acc, event)
    assert ANTHROPIC.as_message(acc)["content"] == [
        {"type": "compaction", "content": "Summary.", "encrypted_content": "e"}]


# -- Ollama --------------------------------------------------------------------------------
def test_ollama_calls_are_functions():
    message = {"model": "llama3", "done": True, "message": {
        "role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}}
    [call] = OllamaChatStrategy().extract(message)
    assert (call.kind, call.input, call.arguments) == ("function", None, {"city": "Oslo"})


# -- BaseDriver ----------------------------------------------------------------------------
def test_the_driver_runs_functions_and_custom_tools_and_hands_kinds_to_handlers():
    seen = []
    driver = BaseDriver(
        {"get_capital": lambda country: f"capital of {country}",
         "write_sql": lambda sql: seen.append(sql) or "1 row"},
        handlers={"computer": lambda call: seen.append(call) or SCREEN,
                  "apply_patch": lambda call: f"patched {call.arguments['operation']['path']}"},
        foreign_calls="ignore")
    reply = driver.process_llm_response(copy.deepcopy(RESPONSE))
    assert seen == ["SELECT 1", CLIENT_CALLS[2]]
    assert [(r.kind, r.tool_call_id, r.result) for r in reply.executed_calls] == [
        ("function", "call_f", "capital of France"), ("custom", "call_c", "1 row"),
        ("computer", "call_cu", SCREEN), ("apply_patch", "call_ap", "patched a.txt")]
    assert reply.pending_calls == [CLIENT_CALLS[3], CLIENT_CALLS[4]]  # no handler: pending
    assert reply.call_executed and reply.call_pending and not reply.call_failed
    assert [m["type"] for m in reply.messages[len(EVERY_ITEM):]] == [
        "function_call_output", "custom_tool_call_output", "computer_call_output",
        "apply_patch_call_output"]


def test_a_handler_that_raises_is_a_failed_record_of_its_kind():
    def broken(call):
        raise OSError("display gone")

    reply = BaseDriver(handlers={"computer": broken}, foreign_calls="ignore") \
        .process_llm_response({"output": [EVERY_ITEM[4]]})
    [record] = reply.executed_calls
    assert (record.kind, record.error) == ("computer", "computer raised OSError: display gone")
    assert reply.call_failed and "display gone" in reply.retry_prompt
    assert reply.messages[-1]["type"] == "computer_call_output"


def test_a_custom_call_with_bad_input_is_reported_never_run():
    ran = []
    item = dict(EVERY_ITEM[3], input=None)
    reply = BaseDriver({"write_sql": ran.append}).process_llm_response({"output": [item]})
    assert ran == [] and reply.call_failed
    assert "malformed input for 'write_sql'" in reply.executed_calls[0].error


def test_handler_for_may_be_overridden():
    class Desktop(BaseDriver):
        def handler_for(self, call):
            return lambda call: f"ran {call.kind}"

    reply = Desktop(foreign_calls="ignore").process_llm_response(copy.deepcopy(RESPONSE))
    assert [r.result for r in reply.executed_calls] == [
        "ran computer", "ran local_shell", "ran shell", "ran apply_patch"]
    assert reply.pending_calls == [] and not reply.call_pending


@pytest.mark.parametrize("handlers, error, words", [
    ({"custom": print}, ValueError, "run through `tools`"),
    ({"computer": "not callable"}, TypeError, "not callable"),
    ([("computer", print)], TypeError, "handlers must map"),
])
def test_bad_handlers_are_refused_with_a_clear_error(handlers, error, words):
    with pytest.raises(error, match=words):
        BaseDriver(handlers=handlers)


# -- the kit's corpus replay ---------------------------------------------------------------
def test_replay_outcomes_show_the_kind_of_non_function_calls_only():
    from mcs_conformance.corpora import outcome
    from mcs_reference import default_chain

    items = [EVERY_ITEM[2], EVERY_ITEM[3], EVERY_ITEM[4]]  # function, custom, computer
    events = [{"type": "response.created", "response": dict(RESPONSE, output=[],
                                                             status="in_progress")},
              *[{"type": "response.output_item.done", "output_index": n, "item": item}
                for n, item in enumerate(items)],
              {"type": "response.completed", "response": dict(RESPONSE, output=items)}]
    result = outcome("kinds", events, default_chain)
    function, custom, computer = result["calls"]
    assert set(function) == {"name", "arguments", "id", "error", "raw_arguments"}
    assert (custom["kind"], custom["input"]) == ("custom", "SELECT 1")
    assert (computer["kind"], computer["input"], computer["name"]) == ("computer", None,
                                                                       "computer")
    assert [m["type"] for m in result["history"][len(items):]] == [
        "function_call_output", "custom_tool_call_output", "computer_call_output"]


def test_hosted_tool_status_events_move_the_item_and_a_late_one_is_harmless():
    item = EVERY_ITEM[8]  # web_search_call
    acc = RESPONSES.new_accumulator()
    RESPONSES.accumulate(acc, {"type": "response.output_item.added", "output_index": 0,
                               "item": dict(item, status="in_progress")})
    seen = []
    for status in ("in_progress", "searching", "completed"):
        RESPONSES.accumulate(acc, {"type": f"response.web_search_call.{status}",
                                   "output_index": 0, "item_id": "ws_1"})
        seen.append(RESPONSES.as_message(acc)["output"][0]["status"])
    assert seen == ["in_progress", "searching", "completed"]
    RESPONSES.accumulate(acc, {"type": "response.output_item.done", "output_index": 0,
                               "item": item})
    RESPONSES.accumulate(acc, {"type": "response.web_search_call.completed",
                               "output_index": 0, "item_id": "ws_1"})
    assert RESPONSES.as_message(acc)["output"] == [item]
    assert RESPONSES.extract(RESPONSES.as_message(acc)) == []


def test_shell_commands_stream_into_the_action():
    item = dict(EVERY_ITEM[6], action=dict(SHELL, commands=[]), status="in_progress")
    acc = RESPONSES.new_accumulator()
    for event in [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.shell_call_command.added", "output_index": 0, "command_index": 0,
         "command": "ls "},
        {"type": "response.shell_call_command.delta", "output_index": 0, "command_index": 0,
         "delta": "-l"},
        {"type": "response.shell_call_command.added", "output_index": 0, "command_index": 1,
         "command": "pwd"},
    ]:
        RESPONSES.accumulate(acc, event)
    assert RESPONSES.as_message(acc)["output"][0]["action"]["commands"] == ["ls -l", "pwd"]
    with pytest.raises(EventOutOfOrder, match="command_index 3"):
        RESPONSES.accumulate(acc, {"type": "response.shell_call_command.delta",
                                   "output_index": 0, "command_index": 3, "delta": "x"})
