"""Generate docs/formats.md from the catalogue's codecs, so the page cannot drift.

    python docs/gen_formats.py > docs/formats.md
"""
from __future__ import annotations

from mcs_reference import ExtractedCall, format_codec, format_names

HEAD = """# The catalogue of model-output formats

How each model family writes tool calls in its raw output: what an inference engine's tool
parser reads. Each format has a reference codec in `mcs_reference`
(`mcs_reference.format_codec(NAME)`), certified by the kit through the text strategy and
through the reference parser (docs/engines.md), and a generator of model outputs in
`mcs_conformance.wires` (`format_cases`, `prose_cases`, `malformed_cases`). A generated
output holds prose only where the format's chat template lets the model write it, and never
a special token inside an argument (the model would write the special token, which ends the
call).

```python
from mcs_reference import ExtractedCall, format_codec

codec = format_codec("hermes")
text = "Let me check." + codec.encode([ExtractedCall("get_weather", {"city": "Paris"})])
assert codec.decode(text) == [ExtractedCall("get_weather", {"city": "Paris"})]
assert codec.content(text) == "Let me check."
```
"""


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
        "", "```text", example, "```", ""])


if __name__ == "__main__":
    print(HEAD)
    print("\n".join(section(name) for name in format_names()).rstrip())
