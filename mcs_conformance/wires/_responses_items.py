"""OpenAI Responses output items other than messages and reasoning: calls of every kind.

Client-run items (`function_call`, `custom_tool_call`, `computer_call`, `local_shell_call`,
`shell_call`, `apply_patch_call`) are calls the client must run and answer; provider-run
items (web and file search, code interpreter, image generation, MCP, tool search, a shell
in a hosted container, compaction) ran on OpenAI's side and are never calls. `CALL_KINDS`
maps each client-run item type to the `ExtractedCall.kind` extraction must give it, and
`call_of` builds that call as the reference defines it.

A kind other than a function call is drawn only for a request declaring its tool
(`features`, wires/_features.py: a `computer_call` only beside the computer tool).

An item's small decisions (which kind, which action, failed or not, how its JSON is
written) are read from the item's `Tape` (slots `ITEM_SLOTS`); its ids are left as their
bare prefixes (`fc_`, `call_`) and spelled by `name_items` and `name_calls` once the stream's items are placed,
from the stream's one opaque number, so that they cost no drawn value and never collide.
"""
from __future__ import annotations

import json
import string
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall
from mcs_conformance.wires._base import cut, cut_points, Tape, tapes
from mcs_conformance.wires._content import (BASE62, BASE64, draw_arguments, draw_opaque,
                                            draw_tool_name, opaque, prose, spell, tool_names)
from mcs_conformance.wires._features import asks, RESPONSES_ITEM_FEATURES

__all__ = ["CALL_KINDS", "ITEM_SLOTS", "PAD_CUT", "STREAMED", "STATUS_EVENTS", "call_of",
           "client_items", "command_pieces", "distinct_custom_names", "draw_client",
           "draw_hosted", "hosted_asked",
           "hosted_items", "name_calls", "name_items"]

HEX = string.digits + "abcdef"
HOSTED_CALL = "call_sh"  # the prefix of a hosted shell's call id: never equal to a client's
# prefix of a placeholder id -> (alphabet, size) of the token `name_calls` spells after it
_CALL_TOKENS = {"call_": (BASE62, 24), HOSTED_CALL: (HEX, 24)}
_ITEM_TOKEN = (HEX, 48)

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
COMMANDS = ("ls -la", "python -c 'print(1)'", "cat README.md", "echo 'é}'")
_SEPARATORS = ((", ", ": "), (",", ":"))
_SHORT_PROSE = prose(max_fragments=2)
_OUTPUT_PROSE = prose(max_fragments=3)
_NAMES = st.lists(tool_names(), min_size=1, max_size=2, unique=True)
_SOME_NAMES = st.lists(tool_names(), max_size=2, unique=True)
_QUERIES = st.lists(_SHORT_PROSE, min_size=1, max_size=2)
_IMAGES = opaque(BASE64, max_size=60)
_COMPACTED = opaque(BASE64, max_size=40)

#: The slots of an item's tape that the items of this module read.
ITEM_SLOTS = ("client", "hosted", "separators", "ascii", "action", "x", "y", "keys", "key-0",
              "key-1", "command", "timeout", "commands", "command-0", "command-1", "operation",
              "web-action", "code", "outputs", "failed", "stdout-0", "stdout-1", "cuts-0",
              "cuts-1", *(f"cut-{number}-{k}" for number in (0, 1) for k in range(3)))


def _dump(tape: Tape, value: Any) -> str:
    """`value` written as JSON the way servers write it: spaced or compact, raw or escaped."""
    return json.dumps(value, separators=tape.pick("separators", _SEPARATORS),
                      ensure_ascii=tape.flip("ascii"))


def _function_call(tape: Tape, value: dict, name: str, extra: None) -> dict:
    return {"id": "fc_", "type": "function_call", "status": "completed",
            "arguments": _dump(tape, value), "call_id": "call_", "name": name}


def _custom_tool_call(tape: Tape, value: dict, name: str, extra: str) -> dict:
    return {"id": "ctc_", "type": "custom_tool_call", "status": "completed",
            "call_id": "call_", "name": name, "input": extra}


def _action(tape: Tape, text: str) -> dict:
    kind = tape.below("action", 4)
    if kind == 0:
        return {"type": "click", "button": "left", "x": tape.below("x", 240) * 8,
                "y": tape.below("y", 216) * 5}
    if kind == 1:
        return {"type": "type", "text": text}
    if kind == 2:
        return {"type": "screenshot"}
    keys = ("CTRL", "L", "ENTER")
    return {"type": "keypress",
            "keys": [tape.pick(f"key-{n}", keys) for n in range(1 + tape.flip("keys"))]}


def _computer_call(tape: Tape, value: dict, name: str, extra: str) -> dict:
    return {"id": "cu_", "type": "computer_call", "status": "completed",
            "call_id": "call_", "action": _action(tape, extra), "pending_safety_checks": []}


def _local_shell_call(tape: Tape, value: dict, name: str, extra: None) -> dict:
    return {"id": "lsh_", "type": "local_shell_call", "status": "completed",
            "call_id": "call_",
            "action": {"type": "exec", "command": ["bash", "-lc", tape.pick("command", COMMANDS)],
                       "env": {}, "timeout_ms": tape.pick("timeout", (None, 10000)),
                       "user": None, "working_directory": None}}


def _shell_call(tape: Tape, hosted: bool = False) -> dict:
    item = {"id": "shc_" if hosted else "sh_", "type": "shell_call",
            "status": "completed", "call_id": HOSTED_CALL if hosted else "call_",
            "action": {"commands": [tape.pick(f"command-{n}", COMMANDS)
                                    for n in range(1 + tape.flip("commands"))],
                       "timeout_ms": None, "max_output_length": None}}
    if hosted:
        item["environment"] = {"type": "container_reference", "container_id": "cntr_abc123"}
    return item


def _client_shell_call(tape: Tape, value: dict, name: str, extra: None) -> dict:
    return _shell_call(tape)


def command_pieces(tape: Tape, number: int, command: str) -> list[str]:
    """A shell command cut at up to three points read from the item's tape (the commands
    come from a short table: their cuts need not cost a drawn value)."""
    span = min(len(command), 255) + 1
    points = sorted(tape.below(f"cut-{number % 2}-{k}", span)
                    for k in range(tape.below(f"cuts-{number % 2}", 4)))
    return cut(command, points, allow_empty=False)


_OPERATIONS = ({"type": "update_file", "path": "src/app.py", "diff": "@@\n-a = 1\n+a = 2\n"},
               {"type": "update_file", "path": "src/app.py", "diff": "@@\n+print('}')\n"},
               {"type": "create_file", "path": "notes.md", "diff": "+# Notes\n"},
               {"type": "delete_file", "path": "old.txt"})


def _apply_patch_call(tape: Tape, value: dict, name: str, extra: None) -> dict:
    return {"id": "apc_", "type": "apply_patch_call", "status": "completed",
            "call_id": "call_", "operation": dict(tape.pick("operation", _OPERATIONS))}


# (its item type, what the kind draws of its own, how it is built): a function call as often
# as every other kind together, the others about equally often.
_CLIENT_KINDS = (("function_call", None, _function_call),) * 5 + (
    ("custom_tool_call", _CUSTOM_INPUTS, _custom_tool_call),
    ("computer_call", _SHORT_PROSE, _computer_call),
    ("local_shell_call", None, _local_shell_call), ("shell_call", None, _client_shell_call),
    ("apply_patch_call", None, _apply_patch_call))


def _asked(kinds: tuple, features: frozenset | None) -> tuple:
    """The kinds a request asking `features` may be served (a function call: always)."""
    return tuple(kind for kind in kinds if kind[0] not in RESPONSES_ITEM_FEATURES
                 or asks(features, RESPONSES_ITEM_FEATURES[kind[0]]))


def draw_client(draw: Callable, tape: Tape, features: frozenset | None = None) -> dict:
    """One client-run call item (ids left as their prefixes).

    The kind is read from the item's tape, drawn first in the item's span; then come the
    kind's own draws (a custom tool's input, a computer call's text), then what a function
    call draws (arguments and a name), drawn by every kind, and in its events one cut
    (`PAD_CUT` where the item streams no field). So a function call is the shortest client
    call, which Hypothesis shrinks toward, and a kind lowered to a function call loses just
    the draws right after the tape (the ones Hypothesis deletes when a lowered value makes
    a case shorter). `features`: what the request can ask (None: every kind)."""
    _, own, build = tape.pick("client", _asked(_CLIENT_KINDS, features))
    extra = None if own is None else draw(own)
    value, name = draw_arguments(draw), draw_tool_name(draw)
    return build(tape, value, name, extra)


#: What a client call that streams no field draws in its events in place of the cut of a
#: function call's `{}` (see `draw_client`).
PAD_CUT = cut_points(2)


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

def _web_search_call(draw: Callable, tape: Tape) -> list[dict]:
    query = draw(_SHORT_PROSE)
    action = ({"type": "search", "query": query, "sources": None} if not tape.flip("web-action")
              else {"type": "open_page", "url": "https://example.com/"})
    return [{"id": "ws_", "type": "web_search_call", "status": "completed", "action": action}]


def _file_search_call(draw: Callable, tape: Tape) -> list[dict]:
    return [{"id": "fs_", "type": "file_search_call", "status": "completed",
             "queries": draw(_QUERIES), "results": None}]


def _code_interpreter_call(draw: Callable, tape: Tape, outputs: bool = True) -> list[dict]:
    """`outputs`: whether the request asked them (`include`); else they are null."""
    shown = tape.flip("outputs") and outputs
    return [{"id": "ci_", "type": "code_interpreter_call", "status": "completed",
             "code": tape.pick("code", ("print(1 + 1)", "import json\nprint('{')")),
             "container_id": "cntr_abc123",
             "outputs": [{"type": "logs", "logs": "2\n"}] if shown else None}]


def _image_generation_call(draw: Callable, tape: Tape) -> list[dict]:
    return [{"id": "ig_", "type": "image_generation_call", "status": "completed",
             "result": draw(_IMAGES)}]


def _mcp_call(draw: Callable, tape: Tape) -> list[dict]:
    name, value = draw_tool_name(draw), draw_arguments(draw)
    output = draw(_OUTPUT_PROSE)  # drawn whether it failed or not
    failed = tape.flip("failed")
    return [{"id": "mcp_", "type": "mcp_call", "name": name,
             "server_label": "deepwiki", "arguments": _dump(tape, value),
             "output": None if failed else output,
             "error": {"type": "http_error", "code": 502, "message": "Bad Gateway"}
             if failed else None,
             "status": "failed" if failed else "completed"}]


def _mcp_list_tools(draw: Callable, tape: Tape) -> list[dict]:
    names = draw(_NAMES)
    failed = tape.flip("failed")
    return [{"id": "mcpl_", "type": "mcp_list_tools", "server_label": "deepwiki",
             "tools": [] if failed else [{"name": name, "input_schema": {"type": "object"},
                                          "description": None, "annotations": None}
                                         for name in names],
             "error": "server unreachable" if failed else None}]


def _mcp_approval_request(draw: Callable, tape: Tape) -> list[dict]:
    name, value = draw_tool_name(draw), draw_arguments(draw)
    return [{"id": "mcpr_", "type": "mcp_approval_request", "name": name,
             "server_label": "deepwiki", "arguments": _dump(tape, value)}]


def _tool_search(draw: Callable, tape: Tape) -> list[dict]:
    query = draw(_SHORT_PROSE)
    tools = [{"type": "function", "name": name, "description": None,
              "parameters": {"type": "object", "properties": {}}, "strict": False}
             for name in draw(_SOME_NAMES)]
    return [{"id": "tsc_", "type": "tool_search_call", "status": "completed",
             "execution": "server", "arguments": {"query": query}, "call_id": None},
            {"id": "tso_", "type": "tool_search_output", "status": "completed",
             "execution": "server", "tools": tools, "call_id": None}]


def _compaction(draw: Callable, tape: Tape) -> list[dict]:
    return [{"id": "cmp_", "type": "compaction",
             "encrypted_content": "gAAAAA" + draw(_COMPACTED)}]


def _hosted_shell(draw: Callable, tape: Tape) -> list[dict]:
    """A shell call run in a hosted container, and the output OpenAI wrote for it."""
    call = _shell_call(tape, hosted=True)
    output = {"id": "sho_", "type": "shell_call_output", "status": "completed",
              "call_id": call["call_id"], "max_output_length": None,
              "output": [{"stdout": tape.pick(f"stdout-{n}", ("", "ok\n", "é\n")), "stderr": "",
                          "outcome": {"type": "exit", "exit_code": 0}}
                         for n, _ in enumerate(call["action"]["commands"])]}
    return [call, output]


# (the type of its first item, how its items are built)
_HOSTED_KINDS = (("web_search_call", _web_search_call), ("file_search_call", _file_search_call),
                 ("code_interpreter_call", _code_interpreter_call),
                 ("image_generation_call", _image_generation_call), ("mcp_call", _mcp_call),
                 ("mcp_list_tools", _mcp_list_tools),
                 ("mcp_approval_request", _mcp_approval_request),
                 ("tool_search_call", _tool_search), ("compaction", _compaction),
                 ("shell_call_output", _hosted_shell))  # a hosted shell is hosted_shell's


def hosted_asked(features: frozenset | None) -> bool:
    """Whether a request asking `features` may be served any provider-run tool use."""
    return bool(_asked(_HOSTED_KINDS, features))


def draw_hosted(draw: Callable, tape: Tape, features: frozenset | None = None) -> list[dict]:
    """The items of one provider-run tool use (one item, or a call and its output), each
    kind the request asks (`features`; None: every one) about equally often; ids left as
    their prefixes. Needs one kind asked (`hosted_asked`)."""
    kind, build = tape.pick("hosted", _asked(_HOSTED_KINDS, features))
    if kind == "code_interpreter_call":
        return build(draw, tape, asks(features, "include"))
    return build(draw, tape)


def _token(alphabet_size: tuple, number: int, opaque: int) -> str:
    alphabet, size = alphabet_size
    value = (opaque + number) % len(alphabet) ** size
    return f"{value:0{size}x}" if alphabet == HEX else spell(value, alphabet, size)


def name_items(items: list[dict], first: int, opaque: int) -> None:
    """Spell the ids of `items` (in place, after their prefixes) from the stream's `opaque`
    number, numbered from `first`: items numbered apart never share an id."""
    for number, item in enumerate(items, first):
        item["id"] += _token(_ITEM_TOKEN, number, opaque)


def name_calls(items: list[dict], number: int, opaque: int) -> None:
    """Spell the call ids of `items` (in place): the `call_` and `call_sh` placeholders,
    which a hosted call and its output share, get the token numbered `number`."""
    for item in items:
        if item.get("call_id") in _CALL_TOKENS:
            item["call_id"] += _token(_CALL_TOKENS[item["call_id"]], number, opaque)


def distinct_custom_names(pairs: list[tuple[dict, list | None]]) -> None:
    """Rename (in place, events too) a custom tool call that has a function call's name: a
    request declares each tool name once (providers refuse two tools of one name), so no
    answer holds both kinds under one name."""
    functions = {item["name"] for item, _ in pairs if item["type"] == "function_call"}
    for item, events in pairs:
        if item["type"] == "custom_tool_call" and item["name"] in functions:
            item["name"] = item["name"][:58] + "_input"
            for event in events or ():
                if isinstance(event.get("item"), dict) and "name" in event["item"]:
                    event["item"]["name"] = item["name"]


_ITEM_TAPES = tapes(ITEM_SLOTS)


@st.composite
def _named(draw: Callable, pick: Callable) -> list[dict]:
    tape, number = _ITEM_TAPES(draw), draw_opaque(draw)
    items = pick(draw, tape)
    items = items if isinstance(items, list) else [items]
    name_items(items, 0, number)
    name_calls(items, 0, number)
    return items


_CLIENT = _named(draw_client).map(lambda items: items[0])
_HOSTED = _named(draw_hosted)


def client_items() -> st.SearchStrategy[dict]:
    """One client-run call item: a function call as often as every other kind together."""
    return _CLIENT


def hosted_items() -> st.SearchStrategy[list[dict]]:
    """The items of one provider-run tool use (one item, or a call and its output)."""
    return _HOSTED
