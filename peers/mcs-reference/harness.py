"""The first row: `mcs_reference` as a client, raw HTTP with `http.client` fed to its buffer
(`mcs_conformance.clients.reference_client`). It has no requirements.txt: it runs in the
project's own environment, the one that runs `peers/run.py`."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from mcs_conformance.clients.reference_client import reference_client  # noqa: E402

from _protocol import serve  # noqa: E402

if __name__ == "__main__":
    serve(__file__, reference_client)
