"""`zettelgraph serve --workers 2`: one port served by two processes, each seeing every write.

The server is started as a user starts it (its own process, the real SQLite store); the
requests go over the network on new connections, so the kernel spreads them over the
workers. Linux only: the workers are forked, and found through /proc.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from zettelgraph.store.falkordb_server import free_port

from .conftest import MEDITATIONS, REPO, ingest

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc"),
]


def _serve(home: Path, port: int, *flags: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from zettelgraph.cli.app import main; main()"]
    settings = ["--home", str(home), "--llm", "fake", "--embeddings", "hash"]
    return subprocess.Popen(
        [*command, *settings, "serve", "--port", str(port), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a Ctrl-C in the test's terminal is not the server's
    )


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    home = tmp_path / "home"
    ingest(home, MEDITATIONS)
    port = free_port()
    process = _serve(home, port, "--workers", "2")
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, process.communicate()
        try:
            if httpx.get(f"{base}/api/contents", timeout=5).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the server did not answer within 120 s"
        time.sleep(0.2)
    try:
        yield process, base, home
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _titles_seen(base: str, requests: int = 40) -> list[set[str]]:
    """What `requests` new connections, 8 at a time, each get for the list of contents."""

    def one(_: int) -> set[str]:
        with httpx.Client(timeout=30) as client:  # a new connection: any worker may take it
            response = client.get(f"{base}/api/contents")
            assert response.status_code == 200
            return {row["title"] for row in response.json()}

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(requests)))


def test_two_workers_serve_one_port_and_each_sees_every_write(
    server: tuple[subprocess.Popen[str], str, Path],
) -> None:
    process, base, home = server
    workers = _children(process.pid)
    assert len(workers) == 2

    assert all(seen == {"Meditations"} for seen in _titles_seen(base))
    # Written by another process (here the CLI) while both workers have read the list
    # before: no worker may answer from what it read then.
    ingest(home, REPO / "examples" / "walden.md")
    seen = _titles_seen(base)
    assert all(len(titles) == 2 and "Meditations" in titles for titles in seen), seen

    # Ctrl-C (SIGINT to the terminal's process group: the server and its workers) stops
    # every worker cleanly and frees the port.
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "stopped" not in err and "Traceback" not in err
    assert all(not Path(f"/proc/{pid}").exists() or _zombie(pid) for pid in workers)
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", int(base.rsplit(":", 1)[1])))


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_port_in_use_is_one_clear_error(
    server: tuple[subprocess.Popen[str], str, Path],
) -> None:
    _, base, home = server
    second = _serve(home, int(base.rsplit(":", 1)[1]), "--workers", "2")
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2
    assert "cannot listen on 127.0.0.1" in err and "--port" in err
