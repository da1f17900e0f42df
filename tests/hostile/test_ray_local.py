"""The local Ray that ``--executor ray`` starts (no ``--address``) listens on loopback only:
Ray has no authentication, so a server on every interface lets anyone on the network run code."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ecosystem.extras import require

ROOT = Path(__file__).resolve().parents[2]

#: Plays a game the way ``--executor ray`` does, then lists every listening socket of this
#: process and of every process below it (GCS, raylet, agents, workers) while Ray is up.
_SCRIPT = """
import json
from rulekit.tools.runner import GameTask, run_tasks
records = list(run_tasks([GameTask("tic_tac_toe", (), (), 2, 0, "random", 100)], executor="ray"))
assert len(records) == 1
import psutil  # Ray brings its own copy (ray/thirdparty_files), on the path once ray is imported
me = psutil.Process()
listening = []
for process in [me, *me.children(recursive=True)]:
    try:
        name, connections = process.name(), process.net_connections(kind="inet")
    except psutil.Error:
        continue
    listening += [[name, c.laddr.ip, c.laddr.port] for c in connections if c.status == psutil.CONN_LISTEN]
print(json.dumps(listening))
"""


def _loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


@pytest.mark.slow  # a local Ray takes half a minute to start on a small machine
def test_a_local_ray_listens_on_loopback_only(tmp_path: Path) -> None:
    require("ray", "ray")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)  # would make ray.init join that cluster instead
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    listening = json.loads(done.stdout.strip().splitlines()[-1])
    names = {name for name, _, _ in listening}
    assert {"gcs_server", "raylet"} <= names, listening  # the servers were seen
    exposed = [entry for entry in listening if not _loopback(entry[1])]
    assert not exposed, f"listening beyond loopback: {exposed}"
