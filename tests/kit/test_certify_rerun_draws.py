"""A clause run alone draws, for one seed, the examples it draws in a whole certification.

The reproduce command of a failure reruns one clause (`--clause ID`). Hypothesis draws some
values from the constants written in local modules (the kit's own, from a checkout or an
editable install, as here), so when the kit imported its wires and reference modules as
clauses came to need them, a clause run alone saw another pool and drew other examples.
Each run here is a fresh process; a plugin fingerprints every value a clause checks.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FINGERPRINTS = textwrap.dedent('''
    """Fingerprint each clause's checked values into $MCS_FINGERPRINTS (a test helper)."""
    import hashlib, json, os, sys

    import pytest

    PRINTS = {}

    def _plain(value):
        if isinstance(value, (set, frozenset)):
            return sorted(map(str, value))
        if isinstance(value, bytes):
            return value.hex()
        fields = getattr(value, "__dataclass_fields__", None)
        if fields:
            return {name: getattr(value, name) for name in fields}
        return repr(value)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(session):
        from mcs_conformance.clauses import _runner
        original = _runner.check_each

        def check_each(clause, subject, generator, prop):
            digest = hashlib.sha256()

            def fingerprinted(value):
                digest.update(json.dumps(value, sort_keys=True, default=_plain).encode())
                return prop(value)

            try:
                return original(clause, subject, generator, fingerprinted)
            finally:
                PRINTS[clause.id] = digest.hexdigest()

        for name, module in list(sys.modules.items()):
            if name.startswith("mcs_conformance.clauses.") and hasattr(module, "check_each"):
                module.check_each = check_each

    def pytest_unconfigure(config):
        with open(os.environ["MCS_FINGERPRINTS"], "w") as out:
            json.dump(PRINTS, out)
''')

# Clauses that once drew other examples alone: each ran after another clause had imported
# a kit module the lone run never loaded.
LATE = ["extract.calls", "history.lossless", "robust.no-mutation"]


def _fingerprints(tmp_path: Path, name: str, *clauses: str) -> dict:
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "MCS_FINGERPRINTS": str(out),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
               "no:randomly", "-p", "mcs_fingerprints",
               "--mcs-strategy=mcs_reference:OpenAIChatStrategy", "--mcs-profile=dev",
               "--mcs-seed=3", *(f"--mcs-clause={clause}" for clause in clauses)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("rerun")
    (folder / "mcs_fingerprints.py").write_text(FINGERPRINTS)
    return folder, _fingerprints(folder, "whole")


def test_the_whole_run_fingerprints_every_clause_it_checks(whole):
    _, prints = whole
    assert set(LATE) <= set(prints)


@pytest.mark.parametrize("clause", LATE)
def test_a_clause_alone_draws_what_it_drew_in_the_whole_run(whole, clause):
    folder, prints = whole
    assert _fingerprints(folder, clause, clause)[clause] == prints[clause]
