"""`RayRemote()` with no cluster to join (or told `local`) starts a Ray of one node here that
listens on the loopback interface only (Ray's own default listens on every interface), with no
usage statistics; the runner works on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.integration.ray_tools import ROOT
from tests.integration.sockets import listening_sockets, loopback
from tests.support import SAFETY_NET, descendants

STARTS_HERE = textwrap.dedent(
    """
    import json
    import sys
    from tests.integration.remote_calls import RUNS, call
    from tests.remote_tools import where
    from toolfx.interpreters.remote.ray import RayRemote

    remote = RayRemote(**json.loads(sys.argv[1]))
    result = call(RUNS["sync"], remote, where, {"n": 3})
    print(result.value[1], flush=True)
    sys.stdin.read()  # stays up, its cluster with it, until the test has looked
    """
)


@pytest.mark.parametrize(
    ("given", "variables"),
    [
        ({}, {}),  # no cluster to join
        ({"address": "local"}, {}),  # Ray's word for a new one here
        ({}, {"RAY_ADDRESS": "local"}),
    ],
)
def test_a_ray_remote_with_no_cluster_to_join_starts_one_on_the_loopback_only(
    given: dict[str, str], variables: dict[str, str]
) -> None:
    environment = {name: value for name, value in os.environ.items() if not name.startswith("RAY_")}
    environment.update(variables)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    with subprocess.Popen(
        [sys.executable, "-c", STARTS_HERE, json.dumps(given)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
        cwd=ROOT,
    ) as driver:
        assert driver.stdin is not None
        assert driver.stdout is not None
        try:
            assert driver.stdout.readline() == "3\n"  # the call ran on the cluster it started
            sockets = listening_sockets(descendants(driver.pid) | {driver.pid})
            assert sockets  # it started Ray's servers here, not joined another cluster
            assert [entry for entry in sockets if not loopback(entry[1])] == []
        finally:
            driver.stdin.close()
            driver.wait(SAFETY_NET)
