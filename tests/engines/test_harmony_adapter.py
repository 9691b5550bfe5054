"""The openai-harmony adapter without openai-harmony: CI never installs it, so what must hold
there is that the module imports, names the catalogue's harmony format, and says how to
install openai-harmony."""
import sys

import pytest

from mcs_reference import format_names
from mcs_conformance.engines import harmony

CATALOGUE = set(format_names())


def test_formats_are_the_catalogue_harmony_format():
    assert harmony.parser.formats == ("harmony",)
    assert set(harmony.parser.formats) <= CATALOGUE


def test_another_format_is_refused():
    with pytest.raises(LookupError, match="harmony"):
        harmony.parser("hermes")


def test_without_openai_harmony_the_error_is_one_line_naming_the_install_doc(monkeypatch):
    monkeypatch.setitem(sys.modules, "openai_harmony", None)  # as if it were not installed
    with pytest.raises(ImportError) as raised:
        harmony.parser("harmony")
    message = str(raised.value)
    assert "\n" not in message
    assert "peers/engines/harmony/INSTALL.md" in message
