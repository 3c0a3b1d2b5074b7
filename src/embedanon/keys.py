"""Release keys on disk: key files, and the per-user default key that makes re-running safe.

A release is a pure function of (text, configuration, key): under one key, re-running an export
releases the same text, so a second export reveals nothing the first did not. Under a new key it
is a new draw of every word, and draws compose: two knn releases of the same notes let an attacker
recover 37.6 % of their words, five 83.7 % (issue 33). So, as ssh and gpg do with their keys:

* **the default key** (:func:`default_key`): with neither ``--key`` nor ``--seed``, a release uses
  the user's own key, ``$EMBEDANON_KEY`` if that is set, else
  ``$XDG_CONFIG_HOME/embedanon/release.key`` (``~/.config/embedanon/release.key``). The latter
  is created on first use (mode 0600, in a directory of mode 0700) and announced once; a
  ``$EMBEDANON_KEY`` file must exist (``embedanon keygen``): a missing one is a typo, an unmounted
  secret store or a relative path read from another directory, and a key made there would start a
  release that composes with the others (decision 0355); on a CI machine
  (``$CI`` set) it is never created, because it would be lost with the machine and the next run
  would compose with this one;
* **a key file** (:meth:`~embedanon.noise.ReleaseKey.from_file`, written by
  :func:`write_key_file` / ``embedanon keygen``): ``--key FILE``, e.g. one key shared by a team or
  kept in a CI secret store;
* fresh noise only by name: ``--fresh-key`` (:meth:`~embedanon.noise.ReleaseKey.fresh`).

Key files are written through the one atomic writer and never replaced: a full disk leaves no
empty key file, and two processes creating the default key at once (``datasets.map(num_proc=8)``
workers that each build an Anonymizer) end up with the same key: one creates it, the others read it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from ._atomic import OutputError, TargetExists, atomic_write
from ._paths import user_home
from .errors import ConfigError
from .noise import ReleaseKey, check_key_directories, key_path_shown

log = logging.getLogger(__name__)

#: Environment variable naming the default key file (tests, CI secrets, a team's shared key).
KEY_ENV = "EMBEDANON_KEY"


def default_key_path() -> Path:
    """Where the default key lives: ``$EMBEDANON_KEY``, else ``$XDG_CONFIG_HOME/embedanon/release.key``
    (an ``XDG_CONFIG_HOME`` that is not absolute is ignored, as the XDG specification says), else
    ``~/.config/embedanon/release.key``."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(config) if os.path.isabs(config) else user_home() / ".config"
    return base / "embedanon" / "release.key"


def on_ci() -> bool:
    """Whether ``$CI`` says this is a continuous-integration machine (GitHub Actions, GitLab CI,
    CircleCI, Travis and others set it), where a key made on first use dies with the machine."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def write_key_file(path: str | os.PathLike[str]) -> ReleaseKey:
    """Create ``path`` holding a fresh key in hex: mode 0600, never replacing a file, never half
    written (a full disk leaves no file), never standard output (``-``), where a secret would end
    up in terminals and logs, and never into a directory every user can write, where
    :meth:`~embedanon.noise.ReleaseKey.from_file` would refuse it (decision 0405).

    Raises:
        ConfigError: ``path`` is ``-``, empty or exists, is in a directory every user can
            write, or cannot be written.
    """
    text = os.fspath(path)
    if text == "-":
        raise ConfigError("a key is written to a file, never to standard output ('-')")
    if text == "":
        raise ConfigError("key file path is empty; name a file")
    check_key_directories(text, text)  # before writing: a key --key would refuse is never made
    key = ReleaseKey.fresh()
    try:
        with atomic_write(text, private=True, exclusive=True) as fh:
            fh.write(key.secret.hex() + "\n")
    except TargetExists:
        raise ConfigError(f"{text} already exists; a key file is never overwritten") from None
    except OutputError as exc:
        raise ConfigError(f"cannot create key file {text}: {exc}") from None
    return ReleaseKey(key.secret, "file")


def default_key(announce: Callable[[str], object] | None = None) -> ReleaseKey:
    """The user's default release key (see the module docstring), created on first use.

    Args:
        announce: called with :func:`created_message` when this call creates the key (the
            command line prints it); None: the message is logged as a warning.

    Raises:
        ConfigError: the key is missing on a CI machine or where ``$EMBEDANON_KEY`` names it,
            cannot be created, or its file holds no usable key (see
            :meth:`~embedanon.noise.ReleaseKey.from_file`).
    """
    path = default_key_path()
    if not os.path.lexists(path):
        if os.environ.get(KEY_ENV):
            shown = key_path_shown(path)
            target = shown if shown == os.fspath(path) else "FILE' and set the variable to 'FILE"
            raise ConfigError(
                f"${KEY_ENV} names {shown}, which does not exist; make it once with 'embedanon keygen "
                f"{target}' (a key made here now would be a new one, and this release would compose "
                "with those made under the key you meant)")
        if on_ci():
            raise ConfigError(
                f"no release key at {path}, and on a CI machine ($CI is set) one made now would be "
                f"lost with the machine, so the next run would compose with this one: set {KEY_ENV} "
                "to a key file kept with your secrets ('embedanon keygen FILE'), give --key FILE, or "
                "give --fresh-key for a key of this run only")
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the directory of the release key {path}: "
                              f"{exc.strerror or type(exc).__name__}") from None
        try:
            made = write_key_file(path)
        except ConfigError:
            if not os.path.lexists(path):  # a failure, not another process that made it first
                raise
        else:
            key = ReleaseKey(made.secret, "default")
            message = created_message(path, key)
            if announce is None:
                log.warning("%s", message)
            else:
                announce(message)
            return key
    return ReleaseKey.from_file(path, origin="default")


def created_message(path: Path, key: ReleaseKey) -> str:
    """The one announcement of a new default key: its path and fingerprint, never the secret."""
    return (f"created your release key {path} (fingerprint {key.fingerprint()}, mode 0600). Every "
            "release you make without --key uses it, so re-running an export releases the same "
            "text. Keep it secret and back it up: anyone who holds it can replay the noise. Another "
            f"user or machine has another key; to share one, use --key FILE or {KEY_ENV}.")


__all__ = ["KEY_ENV", "created_message", "default_key", "default_key_path", "on_ci", "write_key_file"]
