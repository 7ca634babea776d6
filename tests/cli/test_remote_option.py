"""`toolfx run --remote`: its forms, the parallel-safe tools' bodies in other processes (`local`),
the other tools and `read` here (so that an edit finds the file read), asks on a worker failing
closed, and Ray missing said plainly."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import Ran, toolfx, write_session
from tests.support import SAFETY_NET
from toolfx.core.codemode import RUN_CODE
from toolfx.core.json import JsonValue
from toolfx.core.registry import Catalog, Location, Registry
from toolfx.core.runtime import (
    CancelSignal,
    RemoteOutcome,
    RemotePlacement,
    RemoteRequest,
    RemoteRunner,
    RemoteSettled,
    Runtime,
)
from toolfx.core.tools import tool
from toolfx.interpreters.cli import _remote
from toolfx.interpreters.cli._args import RunCommand, parse_args
from toolfx.interpreters.cli._remote import placed_remotely
from toolfx.interpreters.cli._remote_option import LocalWorkers, RayCluster
from toolfx.interpreters.remote import ProcessRemote, ProvidedTools

FORMS = "expected ray, ray:ADDRESS, local or local:N"

SEARCHES = {
    "calls": [
        {"id": "r1", "name": "read", "arguments": {"path": "notes.txt"}},
        {"id": "g1", "name": "grep", "arguments": {"regex": "TODO"}},
        {"id": "l1", "name": "glob", "arguments": {"pattern": "**/*.txt"}},
    ]
}
"""A turn of the three parallel-safe leaves."""

CHANGES = [
    {"calls": [{"id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "A\n"}}]},
    {
        "calls": [
            {"id": "e1", "name": "edit", "arguments": {"path": "new.txt", "old": "A", "new": "B"}}
        ]
    },
    {"calls": [{"id": "b1", "name": "bash", "arguments": {"command": "cat new.txt"}}]},
]
"""Turns of the leaves that change things or run commands: never placed remotely."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("hello\nTODO: ship\n", encoding="utf-8")
    (root / "docs" / "plan.txt").write_text("TODO: plan\n", encoding="utf-8")
    return root


@dataclass
class Recording:
    """A `ProcessRemote` that notes each body it ran: its tool and what became of it."""

    inner: RemoteRunner
    source: ProvidedTools | None
    workers: int | None
    ran: list[tuple[str, RemoteOutcome]] = field(default_factory=list)

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        outcome = await self.inner.run(request, signal, runtime)
        self.ran.append((request.tool, outcome))
        return outcome


@pytest.fixture
def runners(monkeypatch: pytest.MonkeyPatch) -> list[Recording]:
    """The runners `--remote local` makes in this test, each recording the bodies it ran."""
    made: list[Recording] = []

    def recording(source: ProvidedTools | None = None, *, workers: int | None = None) -> Recording:
        made.append(Recording(ProcessRemote(source, workers=workers), source, workers))
        return made[-1]

    monkeypatch.setattr(_remote, "ProcessRemote", recording)
    return made


def run(
    tmp_path: Path,
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    turns: list[Any],
    *options: str,
) -> Ran:
    session = write_session(tmp_path / "session.jsonl", *turns)
    return toolfx(capsys, "run", session, "--workspace", str(workspace), "--json", *options)


def results(ran: Ran) -> list[dict[str, Any]]:
    """The results as `--json` printed them, in the order of their call ids (concurrent
    interpreters print them as they settle)."""
    assert ran.code == 0, ran.err
    return sorted((json.loads(line) for line in ran.out.splitlines()), key=lambda r: r["callId"])


def worker_pid(outcome: RemoteOutcome) -> int:
    """The pid of the worker process a settled body ran in (as `ProcessRemote` names it)."""
    assert isinstance(outcome, RemoteSettled), outcome
    found = re.fullmatch(r"a local worker process \(pid (\d+)\)", outcome.worker)
    assert found is not None, outcome.worker
    return int(found[1])


# The forms ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "option"),
    [
        ("ray", RayCluster()),
        ("ray:10.0.0.5:6379", RayCluster("10.0.0.5:6379")),
        ("ray:auto", RayCluster("auto")),
        ("local", LocalWorkers()),
        ("local:3", LocalWorkers(3)),
    ],
)
def test_remote_takes_a_ray_cluster_or_local_workers(
    given: str, option: RayCluster | LocalWorkers
) -> None:
    command = parse_args(["run", "s.jsonl", "--remote", given])
    assert isinstance(command, RunCommand)
    assert command.remote == option


def test_without_remote_every_body_runs_here() -> None:
    command = parse_args(["run", "s.jsonl"])
    assert isinstance(command, RunCommand)
    assert command.remote is None


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("", ""),
        ("cloud", ""),
        ("Ray", "; did you mean ray?"),
        ("locl:2", "; did you mean local:2?"),
        ("ray:", ": give an address after ray:"),
        ("local:0", ": N is how many worker processes run bodies at once"),
        ("local:two", ": N is how many worker processes run bodies at once"),
        ("local:-1", ": N is how many worker processes run bodies at once"),
        ("local:\u0663", ": N is how many worker processes run bodies at once"),  # Arabic 3
    ],
)
def test_a_bad_remote_is_a_usage_error_naming_the_forms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, given: str, why: str
) -> None:
    ran = run(tmp_path, workspace, capsys, [SEARCHES], "--remote", given)
    assert ran.code == 2
    assert ran.out == ""  # nothing ran
    assert f"toolfx run: error: argument --remote: {FORMS}, not {given!r}{why}" in ran.err
    assert "Traceback" not in ran.err


# Bodies in other processes -----------------------------------------------------------------------


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_local_runs_the_parallel_safe_bodies_in_worker_processes_with_the_same_results(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    runners: list[Recording],
    interpreter: str,
) -> None:
    chosen = ("--interpreter", interpreter, "--sandbox", "off")
    here = results(run(tmp_path, workspace, capsys, [SEARCHES], *chosen))
    assert runners == []
    remote = results(run(tmp_path, workspace, capsys, [SEARCHES], *chosen, "--remote", "local:2"))
    assert remote == here
    assert [result["isError"] for result in remote] == [False, False, False]
    [runner] = runners
    assert runner.workers == 2
    assert runner.source == ProvidedTools.of(str(workspace.resolve()), None, "off")
    assert sorted(tool for tool, _ in runner.ran) == ["glob", "grep"]
    pids = {worker_pid(outcome) for _, outcome in runner.ran}
    assert os.getpid() not in pids


def test_write_edit_and_bash_stay_here_and_their_asks_are_answered_here(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    runners: list[Recording],
) -> None:
    session = write_session(tmp_path / "session.jsonl", *CHANGES, SEARCHES)
    ran = toolfx(
        capsys,
        "run",
        session,
        "--workspace",
        str(workspace),
        "--remote",
        "local:1",
        "--yes",
        "--no-color",
        "--sandbox",
        "off",
    )
    assert ran.code == 0, ran.err
    assert "approval write · w1: edit new.txt (write new.txt) → allowed once" in ran.out
    assert "6 calls: 6 succeeded, 0 failed" in ran.out
    assert "✓ bash cat new.txt · exit 0" in ran.out
    assert (workspace / "new.txt").read_text(encoding="utf-8") == "B\n"
    [runner] = runners
    assert sorted(tool for tool, _ in runner.ran) == ["glob", "grep"]  # the last turn


def test_read_stays_here_so_that_an_edit_after_it_finds_the_file_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, runners: list[Recording]
) -> None:
    read = {"calls": [{"id": "r1", "name": "read", "arguments": {"path": "notes.txt"}}]}
    edit = {
        "id": "e1",
        "name": "edit",
        "arguments": {"path": "notes.txt", "old": "TODO", "new": "DONE"},
    }
    turns = [read, {"calls": [edit]}]
    ran = run(tmp_path, workspace, capsys, turns, "--yes", "--remote", "local:1")
    [edited] = [result for result in results(ran) if result["callId"] == "e1"]
    assert edited["isError"] is False, edited["content"]
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "hello\nDONE: ship\n"
    [runner] = runners
    assert runner.ran == []


def test_an_ask_a_remote_body_makes_fails_closed_unless_a_rule_allows_it(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    runners: list[Recording],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.txt").write_text("beyond\n", encoding="utf-8")
    search = {"regex": "beyond", "path": str(outside)}
    turn = {"calls": [{"id": "x1", "name": "grep", "arguments": search}]}
    [here] = results(run(tmp_path, workspace, capsys, [turn], "--yes"))
    assert here["isError"] is False  # asked here, and --yes allowed it once
    [remote] = results(run(tmp_path, workspace, capsys, [turn], "--yes", "--remote", "local:1"))
    assert remote["error"]["code"] == "DENIED"
    assert "no one was there to answer the ask" in remote["content"]  # not the person: no one
    rules: JsonValue = [
        {"permission": "external_directory", "pattern": str(outside), "action": "allow"}
    ]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules), encoding="utf-8")
    options = ("--rules", str(path), "--remote", "local:1")
    [allowed] = results(run(tmp_path, workspace, capsys, [turn], *options))
    assert allowed["isError"] is False
    assert "beyond" in allowed["content"]
    assert runners[-1].source == ProvidedTools.of(str(workspace.resolve()), rules)
    assert [tool for tool, _ in runners[-1].ran] == ["grep"]


# Placement ---------------------------------------------------------------------------------------


@tool(parallel_safe=True)
def lookup(key: str) -> str:
    """Look a key up."""
    return key


@tool(parallel_safe=True, remote=RemotePlacement(cpus=2))
def crunch(n: int) -> int:
    """Crunch a number on two CPUs."""
    return n


@tool(remote=RemotePlacement(memory_bytes=2**30))
def train(n: int) -> int:
    """Train once, alone, in a gibibyte."""
    return n


@tool
def save(text: str) -> str:
    """Save a text, alone and here."""
    return text


@tool(parallel_safe=True, name="read")
def read_notes(path: str) -> str:
    """Read notes: parallel-safe, and named as the leaf whose reads edits check."""
    return path


def catalog_of(mode: Any) -> Catalog:
    location = Location(Registry(default_mode=mode))
    never_parallel = replace(save, name="store", is_concurrency_safe=False)
    for definition in (lookup, crunch, train, save, read_notes, never_parallel):
        location.register(definition)
    return location.catalog()


def placement(catalog: Catalog, name: str) -> RemotePlacement | None:
    definition = catalog.get(name)
    assert definition is not None, name
    return definition.remote


@pytest.mark.parametrize("mode", ["native", "code", "both"])
def test_parallel_safe_tools_but_read_are_placed_and_a_placement_of_its_own_kept(mode: str) -> None:
    catalog = catalog_of(mode)
    placed = placed_remotely(catalog)
    assert placement(placed, "lookup") == RemotePlacement()
    assert placement(placed, "crunch") == RemotePlacement(cpus=2)
    assert placement(placed, "train") == RemotePlacement(memory_bytes=2**30)
    assert placement(placed, "save") is None
    assert placement(placed, "store") is None  # parallel-safe False, not None: not placed
    assert placement(placed, "read") is None  # kept here: edits check what it read
    assert placed.presentation_mode == catalog.presentation_mode == mode
    assert [s.name for s in placed.native_schemas()] == [s.name for s in catalog.native_schemas()]
    assert (RUN_CODE in placed) == (mode != "native")
    assert catalog.get("lookup") is lookup  # the catalog given is a value: it is unchanged


# Ray ---------------------------------------------------------------------------------------------


def test_ray_asked_for_where_it_is_not_installed_is_one_clear_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    workspace: Path,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # RayRemote sets it: put back afterwards
    for given in ("ray", "ray:10.0.0.5:6379"):
        ran = run(tmp_path, workspace, capsys, [SEARCHES], "--remote", given)
        assert ran.code == 2
        assert ran.out == ""  # nothing ran
        assert ran.err == (
            "toolfx: --remote ray needs Ray, which is not installed: install"
            " toolfx-interpreters[ray] (or toolfx[ray])\n"
        )


def test_ray_is_imported_only_when_asked_for(tmp_path: Path, workspace: Path) -> None:
    session = write_session(tmp_path / "session.jsonl", SEARCHES)
    script = f"""
import sys
from toolfx.interpreters.cli import main
for remote in ([], ["--remote", "local:1"]):
    code = main(["run", {session!r}, "--workspace", {str(workspace)!r}, "--json", *remote])
    ray = sorted(m for m in sys.modules if m.split(".")[0] == "ray" or m.endswith("remote.ray"))
    print("imported:", code, ray)
"""
    shown = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=SAFETY_NET,
    )
    said = [line for line in shown.stdout.splitlines() if line.startswith("imported:")]
    assert said == ["imported: 0 []", "imported: 0 []"], shown.stderr
