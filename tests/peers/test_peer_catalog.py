"""The peer folders: every peer.json is valid, the reference comes first, pins are exact,
and a broken peer.json is one line naming the file and the fix."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "peers"))
from matrix import catalog  # noqa: E402


def test_the_repositorys_peers_load_with_the_reference_first():
    peers = catalog.load_peers()
    assert peers[0].name == catalog.REFERENCE and peers[0].in_project
    assert len(peers) >= 10 and sum(p.language == "node" for p in peers) >= 3
    for peer in peers:
        if peer.language == "python" and not peer.in_project:
            lines = (peer.folder / "requirements.txt").read_text().split()
            assert lines and all("==" in line for line in lines), peer.name
            assert peer.pinned() != "unknown", peer.name
            assert peer.command().startswith(f"env PYTHONPATH=peers .peers/{peer.name}/bin/python ")


def write_peer(root: Path, **changes) -> Path:
    folder = root / "acme"
    folder.mkdir()
    (folder / "harness.py").write_text("")
    data = {"name": "acme", "language": "python", "library": "acme", "homepage": "",
            "wires": ["openai-chat"], "harness": "harness.py", **changes}
    (folder / "peer.json").write_text(json.dumps({k: v for k, v in data.items()
                                                  if v is not None}))
    return folder


@pytest.mark.parametrize("changes, message", [
    ({"wires": ["text"]}, r"wires must be some of openai-chat"),
    ({"library": None}, r"missing library"),
    ({"name": "other"}, r"name 'other' differs from its folder 'acme'"),
    ({"harness": "nope.py"}, r"harness 'nope.py' is not a file"),
    ({"language": "ruby"}, r"language must be python or node"),
])
def test_a_broken_peer_json_names_the_file_and_the_fix(tmp_path, changes, message):
    folder = write_peer(tmp_path, **changes)
    with pytest.raises(catalog.PeerError, match=message) as raised:
        catalog.load_peer(folder)
    assert str(raised.value).startswith(str(folder / "peer.json"))
