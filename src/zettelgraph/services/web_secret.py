"""The web app's own secret: it signs each browser's session and the CSRF tokens of its
pages (`services/http_security.py`, applied by `web/security.py`).

One per installation, made the first time the app starts and kept in the data folder
(`ZETTELGRAPH_HOME/web-secret`, 64 hex digits, readable by the user only), so a page opened
before a restart still posts after it, and a token made by anyone else's installation (or any
value a page chose) is not one of ours.

A file that is not right is dealt with so that the app starts whenever it safely can:

- missing: made, written whole before it takes its name (a crash leaves no half secret);
- not a secret this app wrote (empty, cut short, edited by hand): replaced by a new one, with
  a warning. It signs nothing of the reader's, so a new one costs only a reload of the pages
  open in a browser; refusing to start would block the app over a file no one writes by hand;
- readable by other users: made readable by the user only, with a warning. It is kept: the
  store and the vault beside it are as readable, and another user of this machine can reach
  an app on 127.0.0.1 anyway, so a new secret would protect nothing more;
- unreadable (no permission, a folder in its place): an error naming the file and what to do.
  What the app cannot read it must not overwrite: it may be someone else's.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import stat
from pathlib import Path

from zettelgraph.vault.writer import atomic_write

log = logging.getLogger(__name__)

SECRET_FILE = "web-secret"


class WebSecretError(ValueError):
    """The secret file cannot be read; the message names it and says what to do."""


_SECRET = re.compile(rb"[0-9a-f]{64}")


def web_secret(home: Path) -> bytes:
    """The installation's secret, made on first use (see the module docstring).

    Args:
        home: the zettelgraph home folder that keeps the secret's file.

    Returns:
        The secret's 32 bytes; a new one, written, when the file is missing or holds no secret
        zettelgraph wrote.

    Raises:
        WebSecretError: the file cannot be read, or others can read it and its mode cannot be
            changed.
    """
    path = home / SECRET_FILE
    try:
        text = path.read_bytes().strip()
    except FileNotFoundError:
        return _new_secret(path)
    except OSError as exc:
        raise WebSecretError(
            f"cannot read the web app's secret {path} ({exc.strerror or exc}): make it a file "
            f"readable by you (`chmod 600 {path}`), or delete it and a new one is made (pages "
            "open in a browser then ask to be reloaded)"
        ) from exc
    if _SECRET.fullmatch(text) is None:
        log.warning(
            "%s is not a secret zettelgraph wrote: a new one replaces it (pages open in a "
            "browser ask to be reloaded)",
            path,
        )
        return _new_secret(path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if os.name != "nt" and mode & 0o077:  # Windows keeps no such bits
        log.warning("%s could be read by other users (mode %o): now by you only", path, mode)
        try:
            path.chmod(0o600)
        except OSError as exc:
            raise WebSecretError(
                f"the web app's secret {path} could be read by other users and cannot be "
                f"changed ({exc.strerror or exc}): `chmod 600 {path}`, or delete it"
            ) from exc
    return bytes.fromhex(text.decode("ascii"))


def _new_secret(path: Path) -> bytes:
    secret = secrets.token_bytes(32)
    atomic_write(path, secret.hex() + "\n", mode=0o600)
    return secret
