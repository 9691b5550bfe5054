"""OpenAI Responses output items other than messages and reasoning: calls of every kind.

Client-run items (`function_call`, `custom_tool_call`, `computer_call`, `local_shell_call`,
`shell_call`, `apply_patch_call`) are calls the client must run and answer; provider-run
items (web and file search, code interpreter, image generation, MCP, tool search, a shell
in a hosted container, compaction) ran on OpenAI's side and are never calls. `CALL_KINDS`
maps each client-run item type to the `ExtractedCall.kind` extraction must give it, and
`call_of` builds that call as the reference defines it.
"""
from __future__ import annotations

import json
import string
from typing import Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import built_once
from ._content import BASE62, BASE64, arguments, dump, opaque, prose, token, tool_names

__all__ = ["CALL_KINDS", "STREAMED", "STATUS_EVENTS", "call_of", "client_items",
           "hosted_items"]

HEX = string.digits + "abcdef"
CALL_IDS = token(BASE62, 24).map("call_".__add__)


@built_once
def _ids(prefix: str) -> st.SearchStrategy[str]:
    return token(HEX, 48).map(prefix.__add__)


#: client-run item type -> the kind of its `ExtractedCall`
CALL_KINDS = {"function_call": "function", "custom_tool_call": "custom",
              "computer_call": "computer", "local_shell_call": "local_shell",
              "shell_call": "shell", "apply_patch_call": "apply_patch"}
#: item type -> (its field streamed by deltas, the prefix of those events)
STREAMED = {"function_call": ("arguments", "response.function_call_arguments"),
            "custom_tool_call": ("input", "response.custom_tool_call_input"),
            "mcp_call": ("arguments", "response.mcp_call_arguments"),
            "code_interpreter_call": ("code", "response.code_interpreter_call_code")}
#: item type -> the status events a hosted tool's item goes through, in order (the last
#: is `failed` instead of `completed` when the item failed)
STATUS_EVENTS = {"web_search_call": ("in_progress", "searching", "completed"),
                 "file_search_call": ("in_progress", "searching", "completed"),
                 "code_interpreter_call": ("in_progress", "interpreting", "completed"),
                 "image_generation_call": ("in_progress", "generating", "completed"),
                 "mcp_call": ("in_progress", "completed"),
                 "mcp_list_tools": ("in_progress", "completed")}
_BOOKKEEPING = frozenset({"type", "id", "call_id", "status", "created_by", "caller"})

# Free-form inputs of custom tools: a grammar's output, not JSON.
_CUSTOM_INPUTS = st.one_of(
    st.sampled_from(("SELECT * FROM users WHERE id = 1;", "", "{not json}",
                     "*** Begin Patch\n*** End Patch\n", '{"a": 1}')),
    prose(max_fragments=4),
)
_COMMANDS = st.sampled_from(("ls -la", "python -c 'print(1)'", "cat README.md", "echo 'é}'"))


@st.composite
def _function_call(draw: Callable) -> dict:
    return {"id": draw(_ids("fc_")), "type": "function_call", "status": "completed",
            "arguments": dump(draw, draw(arguments())), "call_id": draw(CALL_IDS),
            "name": draw(tool_names())}


@st.composite
def _custom_tool_call(draw: Callable) -> dict:
    return {"id": draw(_ids("ctc_")), "type": "custom_tool_call", "status": "completed",
            "call_id": draw(CALL_IDS), "name": draw(tool_names()), "input": draw(_CUSTOM_INPUTS)}


_ACTIONS = st.one_of(
    st.builds(lambda x, y: {"type": "click", "button": "left", "x": x, "y": y},
              st.integers(0, 1919), st.integers(0, 1079)),
    st.builds(lambda text: {"type": "type", "text": text}, prose(max_fragments=2)),
    st.just({"type": "screenshot"}),
    st.builds(lambda keys: {"type": "keypress", "keys": keys},
              st.lists(st.sampled_from(("CTRL", "L", "ENTER")), min_size=1, max_size=2)),
)


@st.composite
def _computer_call(draw: Callable) -> dict:
    return {"id": draw(_ids("cu_")), "type": "computer_call", "status": "completed",
            "call_id": draw(CALL_IDS), "action": draw(_ACTIONS), "pending_safety_checks": []}


@st.composite
def _local_shell_call(draw: Callable) -> dict:
    return {"id": draw(_ids("lsh_")), "type": "local_shell_call", "status": "completed",
            "call_id": draw(CALL_IDS),
            "action": {"type": "exec", "command": ["bash", "-lc", draw(_COMMANDS)], "env": {},
                       "timeout_ms": draw(st.sampled_from((None, 10000))),
                       "user": None, "working_directory": None}}


_HOSTED_CALL_IDS = token(HEX, 24).map("call_sh".__add__)  # never equal to a client's


@built_once
@st.composite
def _shell_call(draw: Callable, hosted: bool = False) -> dict:
    item = {"id": draw(_ids("shc_" if hosted else "sh_")), "type": "shell_call",
            "status": "completed", "call_id": draw(_HOSTED_CALL_IDS if hosted else CALL_IDS),
            "action": {"commands": draw(st.lists(_COMMANDS, min_size=1, max_size=2)),
                       "timeout_ms": None, "max_output_length": None}}
    if hosted:
        item["environment"] = {"type": "container_reference", "container_id": "cntr_abc123"}
    return item


_OPERATIONS = st.one_of(
    st.builds(lambda diff: {"type": "update_file", "path": "src/app.py", "diff": diff},
              st.sampled_from(("@@\n-a = 1\n+a = 2\n", "@@\n+print('}')\n"))),
    st.just({"type": "create_file", "path": "notes.md", "diff": "+# Notes\n"}),
    st.just({"type": "delete_file", "path": "old.txt"}),
)


@st.composite
def _apply_patch_call(draw: Callable) -> dict:
    return {"id": draw(_ids("apc_")), "type": "apply_patch_call", "status": "completed",
            "call_id": draw(CALL_IDS), "operation": draw(_OPERATIONS)}


@st.composite
def _picked(draw: Callable, choices: tuple) -> dict | list:
    """One of `choices`, each about equally often (`st.one_of` over many branches favours
    some); shrinks toward the first."""
    return draw(draw(st.sampled_from(choices)))


_OTHER_CLIENT = _picked((_custom_tool_call(), _computer_call(), _local_shell_call(),
                         _shell_call(), _apply_patch_call()))


@st.composite
def _client(draw: Callable) -> dict:
    return draw(_OTHER_CLIENT) if draw(st.booleans()) else draw(_FUNCTION_CALLS)


_FUNCTION_CALLS = _function_call()
_CLIENT = _client()


def client_items() -> st.SearchStrategy[dict]:
    """One client-run call item: a function call as often as every other kind together."""
    return _CLIENT


def call_of(item: dict) -> ExtractedCall:
    """The call extraction must find in a client-run `item` (wire-independent kinds)."""
    kind = CALL_KINDS[item["type"]]
    if kind == "function":
        return ExtractedCall(item["name"], json.loads(item["arguments"]), item["call_id"])
    if kind == "custom":
        return ExtractedCall(item["name"], {}, item["call_id"], kind="custom",
                             input=item["input"])
    payload = {key: value for key, value in item.items() if key not in _BOOKKEEPING}
    return ExtractedCall(kind, payload, item["call_id"], kind=kind)


# --- provider-run items ------------------------------------------------------------------------

@st.composite
def _web_search_call(draw: Callable) -> list[dict]:
    action = draw(st.one_of(
        st.builds(lambda q: {"type": "search", "query": q, "sources": None},
                  prose(max_fragments=2)),
        st.just({"type": "open_page", "url": "https://example.com/"}),
    ))
    return [{"id": draw(_ids("ws_")), "type": "web_search_call", "status": "completed",
             "action": action}]


@st.composite
def _file_search_call(draw: Callable) -> list[dict]:
    return [{"id": draw(_ids("fs_")), "type": "file_search_call", "status": "completed",
             "queries": draw(st.lists(prose(max_fragments=2), min_size=1, max_size=2)),
             "results": None}]


@st.composite
def _code_interpreter_call(draw: Callable) -> list[dict]:
    return [{"id": draw(_ids("ci_")), "type": "code_interpreter_call", "status": "completed",
             "code": draw(st.sampled_from(("print(1 + 1)", "import json\nprint('{')"))),
             "container_id": "cntr_abc123",
             "outputs": draw(st.sampled_from((None, [{"type": "logs", "logs": "2\n"}])))}]


@st.composite
def _image_generation_call(draw: Callable) -> list[dict]:
    return [{"id": draw(_ids("ig_")), "type": "image_generation_call", "status": "completed",
             "result": draw(opaque(BASE64, max_size=60))}]


@st.composite
def _mcp_call(draw: Callable) -> list[dict]:
    failed = draw(st.booleans())
    return [{"id": draw(_ids("mcp_")), "type": "mcp_call", "name": draw(tool_names()),
             "server_label": "deepwiki", "arguments": dump(draw, draw(arguments())),
             "output": None if failed else draw(prose(max_fragments=3)),
             "error": {"type": "http_error", "code": 502, "message": "Bad Gateway"}
             if failed else None,
             "status": "failed" if failed else "completed"}]


@st.composite
def _mcp_list_tools(draw: Callable) -> list[dict]:
    names = draw(st.lists(tool_names(), min_size=1, max_size=2, unique=True))
    failed = draw(st.booleans())
    return [{"id": draw(_ids("mcpl_")), "type": "mcp_list_tools", "server_label": "deepwiki",
             "tools": [] if failed else [{"name": name, "input_schema": {"type": "object"},
                                          "description": None, "annotations": None}
                                         for name in names],
             "error": "server unreachable" if failed else None}]


@st.composite
def _mcp_approval_request(draw: Callable) -> list[dict]:
    return [{"id": draw(_ids("mcpr_")), "type": "mcp_approval_request",
             "name": draw(tool_names()), "server_label": "deepwiki",
             "arguments": dump(draw, draw(arguments()))}]


@st.composite
def _tool_search(draw: Callable) -> list[dict]:
    query = draw(prose(max_fragments=2))
    tools = [{"type": "function", "name": name, "description": None,
              "parameters": {"type": "object", "properties": {}}, "strict": False}
             for name in draw(st.lists(tool_names(), max_size=2, unique=True))]
    return [{"id": draw(_ids("tsc_")), "type": "tool_search_call", "status": "completed",
             "execution": "server", "arguments": {"query": query}, "call_id": None},
            {"id": draw(_ids("tso_")), "type": "tool_search_output", "status": "completed",
             "execution": "server", "tools": tools, "call_id": None}]


@st.composite
def _compaction(draw: Callable) -> list[dict]:
    return [{"id": draw(_ids("cmp_")), "type": "compaction",
             "encrypted_content": "gAAAAA" + draw(opaque(BASE64, max_size=40))}]


@st.composite
def _hosted_shell(draw: Callable) -> list[dict]:
    """A shell call run in a hosted container, and the output OpenAI wrote for it."""
    call = draw(_shell_call(hosted=True))
    output = {"id": draw(_ids("sho_")), "type": "shell_call_output", "status": "completed",
              "call_id": call["call_id"], "max_output_length": None,
              "output": [{"stdout": draw(st.sampled_from(("", "ok\n", "é\n"))), "stderr": "",
                          "outcome": {"type": "exit", "exit_code": 0}}
                         for _ in call["action"]["commands"]]}
    return [call, output]


_HOSTED = _picked((_web_search_call(), _file_search_call(), _code_interpreter_call(),
                   _image_generation_call(), _mcp_call(), _mcp_list_tools(),
                   _mcp_approval_request(), _tool_search(), _compaction(), _hosted_shell()))


def hosted_items() -> st.SearchStrategy[list[dict]]:
    """The items of one provider-run tool use (one item, or a call and its output)."""
    return _HOSTED
