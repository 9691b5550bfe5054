"""The SGLang adapter without SGLang: CI never installs the engine, so what must hold there
is that the module imports, names catalogue formats, and says how to install SGLang."""
import sys

import pytest

from mcs_reference import format_names
from mcs_conformance.engines import sglang

CATALOGUE = set(format_names())


def test_formats_are_catalogue_names():
    assert sglang.parser.formats
    assert set(sglang.parser.formats) <= CATALOGUE


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(LookupError, match="hermes"):
        sglang.parser("no-such-format")


def test_without_sglang_the_error_is_one_line_naming_the_install_doc(monkeypatch):
    for package in ("sglang", "llm_router_utils"):  # as if neither were installed
        monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ImportError) as raised:
        sglang.parser("hermes")
    message = str(raised.value)
    assert "\n" not in message
    assert "peers/engines/sglang/INSTALL.md" in message
