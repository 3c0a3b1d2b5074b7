"""Release keys on disk: the per-user default key, bounded reading, atomic never-replacing writes."""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from embedanon import keys
from embedanon._atomic import TargetExists, atomic_write
from embedanon.errors import ConfigError
from embedanon.keys import KEY_ENV, default_key, default_key_path, write_key_file
from embedanon.noise import MAX_KEY_FILE_BYTES, ReleaseKey

HEX = b"0123456789abcdef" * 4  # a key written in hex (not one repeated byte)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No $EMBEDANON_KEY and no $CI: the default key lives under $XDG_CONFIG_HOME = tmp/config."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_where_the_default_key_lives(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_key_path() == home / "config" / "embedanon" / "release.key"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # the XDG spec says: ignore it
    assert default_key_path() == Path.home() / ".config" / "embedanon" / "release.key"
    monkeypatch.setenv(KEY_ENV, str(home / "team.key"))
    assert default_key_path() == home / "team.key"


def test_the_default_key_is_made_once_private_and_announced_once(home: Path) -> None:
    said: list[str] = []
    first = default_key(announce=said.append)
    path = home / "config" / "embedanon" / "release.key"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert len(said) == 1 and str(path) in said[0] and first.fingerprint() in said[0]
    assert first.secret.hex() not in said[0]
    second = default_key(announce=said.append)
    assert len(said) == 1, "announced once, on creation only"
    assert second.secret == first.secret and first.origin == second.origin == "default"


def test_the_library_logs_the_announcement(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING"):
        key = default_key()
    assert len(caplog.records) == 1 and "created your release key" in caplog.text
    assert key.secret.hex() not in caplog.text


def test_on_ci_no_key_is_made_but_an_existing_one_is_used(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(ConfigError, match=r"on a CI machine \(\$CI is set\).*EMBEDANON_KEY"):
        default_key()
    assert not (home / "config" / "embedanon" / "release.key").exists()
    monkeypatch.setenv("CI", "false")  # an explicit no
    made = default_key(announce=lambda _: None)
    monkeypatch.setenv("CI", "1")
    assert default_key().secret == made.secret


def test_a_missing_key_named_by_the_environment_is_refused_never_made(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``$EMBEDANON_KEY`` names the key the user means; made anew (a typo, an unmounted secret
    store, a relative path read from another directory) it would start a composing release."""
    monkeypatch.setenv(KEY_ENV, str(home / "team.key"))
    with pytest.raises(ConfigError, match=r"EMBEDANON_KEY names .*team\.key, which does not exist.*keygen"):
        default_key(announce=lambda _: None)
    assert not (home / "team.key").exists()
    write_key_file(home / "team.key")
    assert default_key().origin == "default"
    monkeypatch.chdir(home)
    monkeypatch.setenv(KEY_ENV, "relative.key")
    with pytest.raises(ConfigError, match="does not exist"):
        default_key()
    assert not (home / "relative.key").exists()


def test_a_process_that_loses_the_creation_race_reads_the_winners_key(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two first uses at once (``datasets.map(num_proc=8)`` workers each building an Anonymizer):
    the winner's key is published by a link that fails for the loser, who then reads it."""
    path = default_key_path()
    winner: list[ReleaseKey] = []
    real = keys.write_key_file

    def racing(target: str | os.PathLike[str]) -> ReleaseKey:
        winner.append(real(target))  # the other process publishes first ...
        return real(target)  # ... so this one's publish fails

    monkeypatch.setattr(keys, "write_key_file", racing)
    said: list[str] = []
    got = default_key(announce=said.append)
    assert got.secret == winner[0].secret and got.origin == "default" and not said
    assert [p.name for p in path.parent.iterdir()] == ["release.key"]  # no temp file left


def test_concurrent_first_uses_in_threads_agree(home: Path) -> None:
    keys_seen: list[bytes] = []
    start = threading.Barrier(6)

    def use() -> None:
        start.wait()
        keys_seen.append(default_key(announce=lambda _: None).secret)

    threads = [threading.Thread(target=use) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(keys_seen) == 6 and len(set(keys_seen)) == 1


def test_exclusive_publish_fails_when_the_target_appears_meanwhile(tmp_path: Path) -> None:
    target = tmp_path / "k"
    with pytest.raises(TargetExists), atomic_write(target, private=True, exclusive=True) as fh:
        fh.write("mine\n")
        target.write_text("theirs\n")
    assert target.read_text() == "theirs\n" and os.listdir(tmp_path) == ["k"]


def test_keygen_on_a_full_disk_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit defect 11: an O_EXCL file then a write that fails left an empty key file behind,
    which the next run refused, or, worse, a later keygen refused to replace."""
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    path = tmp_path / "release.key"
    with pytest.raises(ConfigError, match="cannot create key file .*No space left on device"):
        write_key_file(path)
    assert os.listdir(tmp_path) == []


def test_keygen_refuses_a_directory_every_user_can_write(tmp_path: Path) -> None:
    """Left by the audit: keygen wrote a key into a 0777 directory, which every ``--key`` use of
    it then refused (decision 0405). Refused up front by the same check, writing nothing; a
    sticky directory (/tmp: 1777) is fine for writing as for reading."""
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)
    key = folder / "release.key"
    with pytest.raises(ConfigError, match=f"^key file {key} is in {folder}, a directory every user can "
                                          "write \\(mode 0777\\)"):
        write_key_file(key)
    assert os.listdir(folder) == []
    folder.chmod(0o1777)
    made = write_key_file(key)
    assert ReleaseKey.from_file(key).secret == made.secret


def test_a_key_file_is_read_with_a_bound(tmp_path: Path) -> None:
    """Audit defect 8: ``--key /dev/zero`` read forever; a huge file was read whole."""
    started = time.monotonic()
    with pytest.raises(ConfigError, match="64 hexadecimal digits"):
        ReleaseKey.from_file("/dev/zero")
    big = tmp_path / "big.key"
    with open(big, "wb") as fh:
        fh.write(HEX + b"\n" + b" " * (50 << 20))  # a key, then 50 MB of blanks
    big.chmod(0o600)
    with pytest.raises(ConfigError, match="64 hexadecimal digits"):
        ReleaseKey.from_file(big)
    assert time.monotonic() - started < 2
    padded = tmp_path / "padded.key"
    padded.write_bytes(b"  " + HEX + b"\r\n" + b" " * (MAX_KEY_FILE_BYTES - 68))
    padded.chmod(0o600)
    assert ReleaseKey.from_file(padded).secret == bytes.fromhex(HEX.decode())
    with pytest.raises(ConfigError, match="cannot read key file"):
        ReleaseKey.from_file(tmp_path)


def test_a_key_can_come_through_a_pipe(tmp_path: Path) -> None:
    """``--key <(vault read ...)``: a descriptor, not a regular file (no mode to check)."""
    read_end, write_end = os.pipe()
    os.write(write_end, HEX + b"\n")
    os.close(write_end)
    try:
        assert ReleaseKey.from_file(f"/dev/fd/{read_end}").secret == bytes.fromhex(HEX.decode())
    finally:
        os.close(read_end)


def test_a_key_given_where_its_path_belongs_is_never_echoed(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key's hex digits pasted as the path (from a secret store) are never shown: a message may
    end in a log."""
    write_key_file(home / "k.key")
    secret = (home / "k.key").read_text().strip()
    for value in (secret, secret + "\n", secret.upper()):
        with pytest.raises(ConfigError) as caught:
            ReleaseKey.from_file(value)
        assert secret.lower() not in str(caught.value).lower() and "looks like a key itself" in str(caught.value)
    monkeypatch.setenv(KEY_ENV, secret)
    with pytest.raises(ConfigError) as caught:
        default_key()
    assert secret not in str(caught.value) and "keygen FILE" in str(caught.value)
    with pytest.raises(ConfigError, match="cannot read key file .*no-such.key"):  # a path is still shown
        ReleaseKey.from_file(home / "no-such.key")
