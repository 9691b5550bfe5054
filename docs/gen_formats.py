"""Generate docs/formats.md from the catalogue's codecs, so the page cannot drift.

    python docs/gen_formats.py > docs/formats.md
"""
from __future__ import annotations

from mcs_reference import ExtractedCall, format_codec, format_names
from mcs_conformance.wires import spelled, spellings_of

HEAD = """# The catalogue of model-output formats

How each model family writes tool calls in its raw output: what an inference engine's tool
parser reads. Each format has a reference codec in `mcs_reference`
(`mcs_reference.format_codec(NAME)`), certified by the kit through the text strategy and
through the reference parser (docs/engines.md), and a generator of model outputs in
`mcs_conformance.wires` (`format_cases`, `prose_cases`, `malformed_cases`). A generated
output holds prose only where the format's chat template lets the model write it, and never
a special token inside an argument (the model would write the special token, which ends the
call).

Beside its chat template's spelling, a generated output may hold the spellings real models
write (or engines show their parsers), each listed below with where it was seen. A case
names those it holds in `FormatCase.spellings` (and a saved finding in `spellings`), as a
stream names its real-server quirks; `model_outputs(NAME, spellings=...)` selects them
(None: those drawn by default; `frozenset()`: the template's own only). The reference codec
reads each back to the calls written.

```python
from mcs_reference import ExtractedCall, format_codec

codec = format_codec("hermes")
text = "Let me check." + codec.encode([ExtractedCall("get_weather", {"city": "Paris"})])
assert codec.decode(text) == [ExtractedCall("get_weather", {"city": "Paris"})]
assert codec.content(text) == "Let me check."
```
"""


EXAMPLE = [ExtractedCall("get_weather", {"city": "Paris", "days": 2}, "a1B2c3D4e")]


def spellings(codec) -> list[str]:
    """The format's spellings: name, what, source, and the example call so spelled."""
    lines = []
    for spelling in spellings_of(codec.name):
        calls = EXAMPLE if spelling.ids else [ExtractedCall("get_weather", EXAMPLE[0].arguments)]
        lines += [f"`{spelling.name}`: {spelling.description}. Source: {spelling.source}.",
                  "", "~~~text", spelled(codec, calls, [spelling]), "~~~", ""]
    return ["### Spellings drawn", "", *lines] if lines else []


def section(name: str) -> str:
    codec = format_codec(name)
    example = codec.encode([ExtractedCall("get_weather", {"city": "Paris", "days": 2})])
    where = [w for w, allowed in (("before", getattr(codec, "prose_before", True)),
                                  ("between", codec.prose_between),
                                  ("after", codec.prose_after)) if allowed]
    tokens = ", ".join(f"`{t}`" for t in codec.special_tokens) or "none"
    return "\n".join([
        f"## `{name}`", "",
        f"- Source: {codec.source}.",
        f"- Special tokens: {tokens}.",
        f"- Prose drawn: {', '.join(where) or 'none'} the calls.",
        "", "```text", example, "```", "", *spellings(codec)])


if __name__ == "__main__":
    print(HEAD)
    print("\n".join(section(name) for name in format_names()).rstrip())
