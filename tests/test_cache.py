"""Verified caches: damaged, renamed or forged cache files are rebuilt, never trusted."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from embedanon import _cache
from embedanon._cache import array_mac, cache_key, load_or_build
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore

SHAPES = {"table": (4, 3)}


@pytest.fixture(autouse=True)
def fresh_cache_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDANON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EMBEDANON_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_cache, "_disabled", None)
    monkeypatch.setattr(_cache, "_keys", {})


class Builder:
    """Counts builds; the true table is arange."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, np.ndarray]:
        self.calls += 1
        return {"table": np.arange(12, dtype=np.int32).reshape(4, 3)}


def _load(path: Path, build: Builder) -> np.ndarray:
    return load_or_build(path, build, enabled=True, shapes=SHAPES)["table"]


def test_a_valid_cache_is_used(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "emb-k3.npz"
    build = Builder()
    first = _load(path, build)
    second = _load(path, build)
    assert build.calls == 1 and np.array_equal(first, second)  # negative control for the rest


def _damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _damage_zero(path: Path) -> None:
    path.write_bytes(b"")


def _damage_crc(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))


def _forge_plain(path: Path) -> None:
    """A well-formed table where every word is its own neighbor, without any MAC."""
    np.savez(path, table=np.repeat(np.arange(4, dtype=np.int32)[:, None], 3, axis=1))


def _forge_other_key(path: Path) -> None:
    """The identity table with a correct-looking MAC made with a key the attacker chose."""
    table = np.repeat(np.arange(4, dtype=np.int32)[:, None], 3, axis=1)
    import json

    key = cache_key()
    assert key is not None
    meta = json.dumps({"version": 1, "name": path.name, "key_id": _cache.key_id(key),
                       "mac": array_mac(b"k" * 32, path.name, {"table": table})})
    np.savez(path, table=table, __embedanon__=np.array(meta))


def _forge_shape(path: Path) -> None:
    key = cache_key()
    assert key is not None
    _cache.write_cache(path, key, {"table": np.zeros((4, 2), dtype=np.int32)})


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_zero, _damage_crc, _forge_plain,
                                    _forge_other_key, _forge_shape])
def test_damaged_or_forged_caches_are_rebuilt(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cache" / "emb-k3.npz"
    build = Builder()
    _load(path, build)
    damage(path)
    table = _load(path, build)
    assert build.calls == 2 and np.array_equal(table, Builder()()["table"])
    assert _load(path, build) is not None and build.calls == 2  # the rewritten cache is valid


def test_a_cache_renamed_from_another_embedding_is_rejected(tmp_path: Path) -> None:
    a, b = tmp_path / "cache" / "embA-k3.npz", tmp_path / "cache" / "embB-k3.npz"
    build = Builder()
    _load(a, build)
    shutil.copy(a, b)  # well-formed and MAC'd, but for another name
    _load(b, build)
    assert build.calls == 2


def test_the_key_is_private_and_reused(tmp_path: Path) -> None:
    key = cache_key()
    path = tmp_path / "home" / "cache.key"
    assert key is not None and len(key) == 32 and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    _cache._keys.clear()
    assert cache_key() == key


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606, 0o620])
def test_a_cache_key_other_users_can_read_or_write_is_not_used(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                                mode: int) -> None:
    """Audit defect 14: whoever can read the key can sign a forged table; whoever can write it
    can swap it. Such a key turns the disk cache off with one warning (the mode, never the key)."""
    key = cache_key()
    path = tmp_path / "home" / "cache.key"
    assert key is not None
    path.chmod(mode)
    _cache._keys.clear()
    build = Builder()
    with caplog.at_level("WARNING"):
        assert cache_key() is None
        _load(tmp_path / "cache" / "a.npz", build)
        _load(tmp_path / "cache" / "a.npz", build)
    assert build.calls == 2 and not (tmp_path / "cache").exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and f"mode {mode:o}" in warnings[0] and "chmod 600" in warnings[0]
    assert key.hex() not in warnings[0]


def test_a_private_cache_key_is_used_after_chmod_600(tmp_path: Path) -> None:
    key = cache_key()
    path = tmp_path / "home" / "cache.key"
    path.chmod(0o644)
    _cache._keys.clear()
    _cache._disabled = None
    path.chmod(0o600)
    assert cache_key() == key


def test_unwritable_cache_directory_warns_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file", encoding="utf-8")
    build = Builder()
    with caplog.at_level("WARNING"):
        for _ in range(3):
            table = _load(blocker / "tables" / "emb-k3.npz", build)
    assert np.array_equal(table, Builder()()["table"]) and build.calls == 3
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "without the disk cache" in warnings[0].getMessage()


def test_unwritable_home_disables_caching_with_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("EMBEDANON_HOME", str(blocker / "home"))
    build = Builder()
    with caplog.at_level("WARNING"):
        _load(tmp_path / "cache" / "a.npz", build)
        _load(tmp_path / "cache" / "a.npz", build)
    assert build.calls == 2 and len(caplog.records) == 1
    assert not (tmp_path / "cache").exists()


def test_disabled_cache_never_touches_disk(tmp_path: Path) -> None:
    build = Builder()
    load_or_build(tmp_path / "cache" / "x.npz", build, enabled=False, shapes=SHAPES)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "home").exists()


def test_forged_neighbor_table_cannot_switch_anonymization_off(tmp_path: Path) -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    vecs = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    store = EmbeddingStore("tiny", words, vecs)
    index = NeighborIndex(store, CandidatePolicy(min_length=1))
    honest = index.table(3).copy()
    path = index.cache_path("k7")
    assert path.is_file()
    identity = np.repeat(np.arange(len(words), dtype=np.int32)[:, None], 7, axis=1)
    os.replace(path, path.with_suffix(".bak"))
    np.savez(path, table=identity)  # every word its own neighbor
    again = NeighborIndex(store, CandidatePolicy(min_length=1)).table(3)
    assert np.array_equal(again, honest)
    assert not (again == np.arange(len(words))[:, None]).any()


def test_warning_only_for_modified_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "cache" / "emb-k3.npz"
    build = Builder()
    _load(path, build)
    monkeypatch.setenv("EMBEDANON_HOME", str(tmp_path / "other-home"))  # another key: silent
    with caplog.at_level("WARNING"):
        _load(path, build)
    assert build.calls == 2 and not caplog.records
    _damage_crc(path)  # damaged under our own key: rebuilt (a warning or an info, never trusted)
    _load(path, build)
    assert build.calls == 3
    _forge_other_key(path)  # a forged MAC under our key id: warned
    with caplog.at_level("WARNING"):
        _load(path, build)
    assert build.calls == 4 and len(caplog.records) == 1 and "integrity" in caplog.text


# -- things planted in a shared cache (audit defects 1, 2, 4) -----------------------------------
def test_a_symbolic_link_in_the_cache_is_replaced_never_written_through(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Defect 1: ``ln -s victim C/tables/T`` made the next run overwrite the victim with a table."""
    path = tmp_path / "cache" / "emb-k3.npz"
    path.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    path.symlink_to(victim)
    build = Builder()
    with caplog.at_level("WARNING"):
        table = _load(path, build)
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not path.is_symlink() and path.is_file() and "not a regular file" in caplog.text
    assert build.calls == 1 and np.array_equal(table, Builder()()["table"])
    assert np.array_equal(_load(path, build), table) and build.calls == 1  # the rebuilt one is used
    dangling = tmp_path / "cache" / "emb-k4.npz"
    dangling.symlink_to(tmp_path / "created-through-the-link")
    _load(dangling, build)
    assert not (tmp_path / "created-through-the-link").exists() and not dangling.is_symlink()


def test_a_link_to_standard_output_in_the_cache_writes_nothing_there(tmp_path: Path) -> None:
    """Defect 1: a link to /dev/stdout replaced the records with the npz."""
    import subprocess
    import sys

    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "emb-k3.npz").symlink_to("/dev/stdout")
    code = ("from pathlib import Path; import numpy as np; from embedanon._cache import load_or_build; "
            f"load_or_build(Path({str(tmp_path / 'cache' / 'emb-k3.npz')!r}), "
            "lambda: {'table': np.zeros((4, 3), np.int32)}, enabled=True, shapes={'table': (4, 3)})")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                          env={**os.environ, "EMBEDANON_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout == b""


def test_a_fifo_in_the_cache_does_not_hang_the_run(tmp_path: Path) -> None:
    """Defect 4: ``mkfifo C/tables/T`` hung every run (the reader waited for a writer)."""
    import threading

    path = tmp_path / "cache" / "emb-k3.npz"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    build, result = Builder(), []
    worker = threading.Thread(target=lambda: result.append(_load(path, build)), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # unblock the reader so the test process can end, then fail
        with open(path, "wb"):
            pass
        pytest.fail("a FIFO in the cache hung the run")
    assert build.calls == 1 and stat.S_ISREG(os.lstat(path).st_mode)
    (tmp_path / "home").mkdir(exist_ok=True)
    os.remove(tmp_path / "home" / "cache.key")
    os.mkfifo(tmp_path / "home" / "cache.key")  # a FIFO as the key: no key, never a hang
    _cache._keys.clear()  # the fixture restores the module's state
    assert cache_key() is None


def _forge_vectors_cache(cached: Path) -> None:
    """What defect 2 did: drop the fingerprint and shuffle the words (a public cache name)."""
    import json

    meta = json.loads((cached / "meta.json").read_text(encoding="utf-8"))
    meta.pop("fingerprint")
    (cached / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    words = (cached / "words.txt").read_text(encoding="utf-8").split("\n")
    (cached / "words.txt").write_text("\n".join(words[1:] + words[:1]), encoding="utf-8")


def test_a_forged_embedding_cache_is_never_used(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Defect 2: a forged fast form of an ``--embedding`` file changed the output, exit 0."""
    from embedanon.vectors import defaults
    from tests.helpers.embeddings import write_glove

    source = write_glove(tmp_path / "e.glove.txt", ["alpha", "bravo", "charlie", "delta", "echo"])
    defaults._load_named.cache_clear()
    honest = defaults.load_embedding(str(source))
    (cached,) = list((tmp_path / "cache" / "vectors").iterdir())
    defaults._load_named.cache_clear()
    assert defaults.load_embedding(str(source)).words == honest.words  # the cache is used ...
    _forge_vectors_cache(cached)
    defaults._load_named.cache_clear()
    with caplog.at_level("WARNING"):
        again = defaults.load_embedding(str(source))
    assert again.words == honest.words and "integrity" in caplog.text
    # ... and rewritten, signed, so a negative control: the same forgery of it is caught again
    defaults._load_named.cache_clear()
    assert defaults.load_embedding(str(source)).words == honest.words
    _forge_vectors_cache(cached)
    defaults._load_named.cache_clear()
    assert defaults.load_embedding(str(source)).words == honest.words
    defaults._load_named.cache_clear()


def _modes(directory: Path) -> set[int]:
    return {stat.S_IMODE(p.stat().st_mode) for p in [directory, *directory.iterdir()]}


def test_a_copy_of_an_embedding_others_may_not_read_is_private(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An embedding trained on the notes holds their names as words: its cached fast form and an
    imported copy were world-readable (0644 under umask 022) though the file was 0600 (found by
    the data audit)."""
    from embedanon.vectors import defaults
    from tests.helpers.embeddings import write_glove

    old = os.umask(0o022)
    try:
        source = write_glove(tmp_path / "e.glove.txt", ["alpha", "bravo", "charlie", "delta", "zorblatovic"])
        source.chmod(0o600)
        defaults._load_named.cache_clear()
        words = defaults.load_embedding(str(source)).words
        (cached,) = list((tmp_path / "cache" / "vectors").iterdir())
        assert _modes(cached) == {0o700, 0o600}
        imported = defaults.import_embedding(source, name="private-one")
        assert imported.words == words
        assert _modes(tmp_path / "home" / "embeddings" / "private-one") == {0o700, 0o600}
        # a public copy left by an older version is rewritten owner-only, without a warning
        for path in [cached, *cached.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        defaults._load_named.cache_clear()
        with caplog.at_level("WARNING"):
            assert defaults.load_embedding(str(source)).words == words
        assert _modes(cached) == {0o700, 0o600} and "integrity" not in caplog.text
        # a 0644 file in a directory others may not enter is private too (decision 0237: its
        # cached copy was 0644 in a 0755 directory); the test's tmp_path is such a directory
        shutil.rmtree(cached)
        private = tmp_path / "private"
        private.mkdir()
        private.chmod(0o700)
        inside = Path(shutil.copy(source, private / "e.glove.txt"))
        inside.chmod(0o644)
        defaults._load_named.cache_clear()
        defaults.load_embedding(str(inside))
        (cached,) = list((tmp_path / "cache" / "vectors").iterdir())
        assert _modes(cached) == {0o700, 0o600}
        shutil.rmtree(cached)
        # a file everyone may read, in directories everyone may enter, keeps the umask's modes
        public = Path(tempfile.mkdtemp())
        public.chmod(0o755)
        opened = shutil.copy(source, public / "e.glove.txt")
        Path(opened).chmod(0o644)
        if not defaults.owner_only(Path(opened)):  # a temp dir under a world-enterable chain
            defaults._load_named.cache_clear()
            defaults.load_embedding(str(opened))
            (cached,) = list((tmp_path / "cache" / "vectors").iterdir())
            assert _modes(cached) == {0o755, 0o644}
        shutil.rmtree(public)
    finally:
        os.umask(old)
        defaults._load_named.cache_clear()


def test_the_default_cache_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left by the audits: with no $EMBEDANON_CACHE the caches went to ~/.cache/embedanon even
    where $XDG_CACHE_HOME moves the user's caches elsewhere (the release key follows
    $XDG_CONFIG_HOME). A relative XDG_CACHE_HOME is ignored, as the XDG specification says."""
    from embedanon._paths import cache_dir

    monkeypatch.delenv("EMBEDANON_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "embedanon"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_dir() == tmp_path / "user" / ".cache" / "embedanon"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == tmp_path / "user" / ".cache" / "embedanon"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("EMBEDANON_CACHE", str(tmp_path / "named"))
    assert cache_dir() == tmp_path / "named"  # the variable of its own comes first


@pytest.mark.skipif(sys.platform == "win32", reason="the account's home comes from the POSIX passwd entry")
def test_an_empty_home_is_the_accounts_home_not_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Left by the concurrency audit: Python reads ``HOME=`` (set, empty) as ``/``, so a service
    started with an empty HOME kept its release key in ``/.config/embedanon`` and its caches in
    ``/.cache``. The account's home from the passwd entry is used instead."""
    import pwd

    from embedanon._paths import cache_dir, home_dir, user_home
    from embedanon.keys import default_key_path

    for name in ("EMBEDANON_CACHE", "EMBEDANON_HOME", "EMBEDANON_KEY", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "")
    account = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert user_home() == account
    assert cache_dir() == account / ".cache" / "embedanon"
    assert home_dir() == account / ".local" / "share" / "embedanon"
    assert default_key_path() == account / ".config" / "embedanon" / "release.key"


def test_an_empty_cache_key_says_how_to_mend_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Concurrency audit (stop 58): the key was made with O_EXCL and written after, so a run
    stopped in between left an empty key that turned the cache off for every later run, with a
    warning that did not say what to do. The key is now published whole; an empty one left by
    an older version is named with its mend."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "cache.key").write_bytes(b"")
    (home / "cache.key").chmod(0o600)
    with caplog.at_level("WARNING"):
        assert cache_key() is None
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "remove it (a new private one is made)" in warnings[0]
    (home / "cache.key").unlink()
    _cache._keys.clear()
    _cache._disabled = None
    key = cache_key()
    assert key is not None and (home / "cache.key").read_bytes() == key
    assert not [p.name for p in home.iterdir() if p.name != "cache.key"]  # no temp file left


def test_a_home_that_is_a_file_is_named_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           caplog: pytest.LogCaptureFixture) -> None:
    """Concurrency audit (stop 58): EMBEDANON_HOME naming a regular file was called a damaged key."""
    home = tmp_path / "homefile"
    home.write_text("x", encoding="utf-8")
    monkeypatch.setenv("EMBEDANON_HOME", str(home))
    with caplog.at_level("WARNING"):
        assert cache_key() is None
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "not a directory" in warnings[0] and "damaged" not in warnings[0]
