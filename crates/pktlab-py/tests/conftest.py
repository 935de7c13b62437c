"""Shared fixtures: the CLI binary (to compare with) and the shared data folder."""

import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def cli():
    """Runs the `pktlab` CLI (PKTLAB_CLI, target/release/pktlab or PATH); skips without it."""
    cand = [os.environ.get("PKTLAB_CLI"), str(REPO / "target" / "release" / "pktlab"), shutil.which("pktlab")]
    exe = next((c for c in cand if c and os.path.exists(c)), None)
    if exe is None:
        pytest.skip("pktlab CLI not built (cargo build --release -p pktlab-cli, or set PKTLAB_CLI)")

    def run(*args, check=True):
        return subprocess.run([exe, *map(str, args)], capture_output=True, text=True, check=check)

    return run


@pytest.fixture(scope="session")
def ris_v4():
    p = SHARED / "routes" / "ris-rrc00-as3333-2026-05-11" / "rib-v4.txt.gz"
    if not p.exists():
        pytest.skip(f"shared data absent: {p}")
    return str(p)
