"""The vLLM adapter without vLLM: CI never installs the engine, so what must hold there is
that the module imports without it, names catalogue formats, and says how to install vLLM."""
import subprocess
import sys

import pytest

from mcs_reference import format_names
from mcs_conformance.engines import vllm

CATALOGUE = set(format_names())


def test_formats_are_catalogue_names():
    assert vllm.parser.formats
    assert set(vllm.parser.formats) <= CATALOGUE
    assert set(vllm.parser.formats) == set(vllm.PARSER_OF_FORMAT)


def test_every_format_has_the_tokens_its_vocabulary_needs():
    assert set(vllm.MARKERS_OF_FORMAT) == set(vllm.parser.formats)
    assert all(markers for markers in vllm.MARKERS_OF_FORMAT.values())


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(LookupError, match="hermes"):
        vllm.parser("no-such-format")


def test_importing_the_adapter_imports_no_engine():
    code = ("import sys; import mcs_conformance.engines.vllm; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('vllm', 'torch', 'transformers', 'tokenizers')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"


def test_without_vllm_the_error_is_one_line_naming_the_install_doc(monkeypatch):
    for name in [name for name in sys.modules if name.split(".")[0] == "vllm"] + ["vllm"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if vLLM were not installed
    with pytest.raises(ModuleNotFoundError) as raised:
        vllm.parser("hermes")
    message = str(raised.value)
    assert "\n" not in message
    assert "peers/engines/vllm/INSTALL.md" in message
