"""`zettelgraph serve --workers N`: one listening socket served by N processes.

One server process runs Python on one core at a time: under 20 readers at once its pages
queue behind each other (11 ms of CPU per request, about 90 requests a second at most, so a
request waits for the 19 before it). Several processes serve one socket the way pre-forking
servers do: the socket is bound once here, then each worker is forked before anything is
opened and builds its own app, so it holds its own store connection, checkpointer and
models (nothing with a file handle or a thread crosses a fork). What the workers share is
decided where it already is for several processes (the CLI beside the web app): the store's
transactions and compare-and-sets, the run locks, the installation's CSRF secret, signed
session cookies. A write in one worker is seen by the next request in any other: the store's
reads check SQLite's `data_version` (`store/read_memo.py`).

Each worker loads its own embedder and, with `--llm local`, its own local model when first
asked: memory grows with the number of workers, which is why the default is one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType

import uvicorn
from fastapi import FastAPI


class WorkersError(Exception):
    """`--workers` cannot be honoured here; the message says what to do."""


def bind(host: str, port: int) -> socket.socket:
    """The listening socket every worker accepts on, bound before any worker starts, so a
    port in use is one clear error rather than N failed workers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise WorkersError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
            "choose another port with --port"
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve_workers(build: Callable[[], FastAPI], host: str, port: int, workers: int) -> int:
    """Serve `build()`'s app from `workers` forked processes until Ctrl-C or SIGTERM; the
    exit code is 0 when every worker ended cleanly."""
    if not hasattr(os, "fork"):
        raise WorkersError(
            "--workers above 1 needs a system that can fork processes (Linux, macOS); "
            "serve with one worker here"
        )
    sock = bind(host, port)
    children: list[int] = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # the worker
            os._exit(_worker(build, sock))
        children.append(pid)
    sock.close()  # the workers hold it

    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            with contextlib.suppress(ProcessLookupError):  # it has just ended
                os.kill(child, signal.SIGTERM)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    failed = False
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        children.remove(pid)
        # A worker stopped by the signal it was sent has done what it was asked; uvicorn
        # re-raises it once its requests are finished.
        if os.waitstatus_to_exitcode(status) != 0 and not stopping:
            # One worker failing on its own (its store or model could not be opened) ends
            # the server: half a server answering some requests would hide the cause.
            failed = True
            stop(signal.SIGTERM, None)
    return 1 if failed else 0


def _worker(build: Callable[[], FastAPI], sock: socket.socket) -> int:
    """One worker's life: its own app on the shared socket; its exit code."""
    try:
        server = uvicorn.Server(uvicorn.Config(build(), log_level="info"))
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C reaches every process of the terminal's group
        return 0
    except BaseException as exc:  # a forked child must never return into the CLI
        print(f"a web worker (process {os.getpid()}) stopped: {exc}", file=sys.stderr)
        return 1
    # Not started: the app's start-up failed (uvicorn has logged why).
    return 0 if server.started else 1
