"""docs/formats.md is what docs/gen_formats.py prints from the catalogue's codecs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_formats_page_is_generated_from_the_catalogue():
    printed = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_formats.py")],
                             capture_output=True, text=True, check=True).stdout
    assert (ROOT / "docs" / "formats.md").read_text("utf-8") == printed, (
        "docs/formats.md is stale: python docs/gen_formats.py > docs/formats.md")
