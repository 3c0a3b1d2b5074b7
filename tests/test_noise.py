"""Keyed counter noise: the fast vectorised AES path against AES-CTR from the cryptography package,
position addressing, stage separation, the integer/uniform transforms, and key handling."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scipy import stats

from embedanon.errors import ConfigError
from embedanon.keys import write_key_file
from embedanon.noise import GeneratorNoise, NoiseSource, ReleaseKey, Stage, integers, uniform
from tests.helpers.noise import fast_key


def ctr_words(key: ReleaseKey, identity: bytes, stage: int, stream: int, n_words: int) -> list[int]:
    """Reference: the first n 64-bit words of AES-256-CTR whose initial counter block is
    (record tag | stage | stream | 0), built byte by byte from the documented layout."""
    source = NoiseSource(key)
    tag = bytes(source.tags([identity])[0])
    lo = (tag[8] << 56) | (stage << 52) | (stream << 40)
    counter = tag[:8] + lo.to_bytes(8, "big")
    enc = Cipher(algorithms.AES(key.subkey("noise")), modes.CTR(counter)).encryptor()
    stream_bytes = enc.update(bytes(8 * n_words))
    return [int.from_bytes(stream_bytes[8 * i : 8 * i + 8], "big") for i in range(n_words)]


@pytest.mark.parametrize("count", [1, 2, 3, 8, 385])
def test_keyed_words_are_the_aes_ctr_keystream(count: int) -> None:
    key = fast_key(1)
    source = NoiseSource(key)
    tags = np.repeat(source.tags([b"record-a"]), 5, axis=0)
    words = source.noise(tags, Stage.MECHANISM, np.arange(5)).words(count, stream=3)
    reference = ctr_words(key, b"record-a", int(Stage.MECHANISM), 3, 5 * count)
    assert words.reshape(-1).tolist() == reference  # token i owns words [i*count, (i+1)*count)


def test_words_depend_on_position_only() -> None:
    source = NoiseSource(fast_key(2))
    tags = source.tags([b"a", b"b", b"c"])
    rows = np.array([0, 1, 2, 0, 1])
    noise = source.noise(tags[rows], Stage.CODES, np.array([0, 0, 0, 1, 7]))
    whole = noise.words(4)
    for i in range(5):
        alone = source.noise(tags[rows[i : i + 1]], Stage.CODES, np.array([[0, 0, 0, 1, 7][i]]))
        assert np.array_equal(alone.words(4)[0], whole[i])
    assert np.array_equal(noise.take(np.array([4, 1])).words(4), whole[[4, 1]])


def test_stages_streams_records_and_keys_are_separate() -> None:
    def words(seed: int, record: bytes, stage: Stage, stream: int) -> tuple[int, ...]:
        source = NoiseSource(fast_key(seed))
        return tuple(source.noise(source.tags([record]), stage, np.array([0])).words(4, stream)[0].tolist())

    base = words(1, b"r", Stage.MECHANISM, 0)
    assert base == words(1, b"r", Stage.MECHANISM, 0)
    others = [words(2, b"r", Stage.MECHANISM, 0), words(1, b"s", Stage.MECHANISM, 0),
              words(1, b"r", Stage.GUARD, 0), words(1, b"r", Stage.MECHANISM, 1)]
    assert len({base, *others}) == 5


def test_uniform_and_integers_are_uniform() -> None:
    """200,000 draws: chi-square goodness of fit at alpha = 1e-6; a biased transform (u ** 1.1)
    fails the same test (negative control)."""
    source = NoiseSource(fast_key(3))
    n = 200_000
    noise = source.noise(np.repeat(source.tags([b"x"]), n, axis=0), Stage.EXPERIMENT, np.arange(n))
    u = uniform(noise, 1)[:, 0]
    assert ((u >= 0) & (u < 1)).all()
    counts = np.bincount((u * 20).astype(int), minlength=20)
    assert stats.chisquare(counts).pvalue > 1e-6
    biased = np.bincount((u**1.1 * 20).astype(int), minlength=20)
    assert stats.chisquare(biased).pvalue < 1e-6
    for high in (1, 3, 10, 21_717):
        picks = integers(noise, high, stream=1)
        assert picks.min() >= 0 and picks.max() < high
        if 1 < high <= 21:
            assert stats.chisquare(np.bincount(picks, minlength=high)).pvalue > 1e-6
    with pytest.raises(ValueError):
        integers(noise, 0)


def test_generator_noise_has_the_protocol_shape() -> None:
    noise = GeneratorNoise(np.random.default_rng(0), 6)
    assert noise.words(3).shape == (6, 3) and len(noise.take(np.array([1, 2]))) == 2


def test_seed_keys_are_reproducible_and_distinct() -> None:
    assert ReleaseKey.from_seed(7).secret == ReleaseKey.from_seed(7).secret
    assert ReleaseKey.from_seed(7).secret != ReleaseKey.from_seed(8).secret
    with pytest.raises(ConfigError, match="seed"):
        ReleaseKey.from_seed(-1)
    assert ReleaseKey.from_seed(np.int64(7)).secret == ReleaseKey.from_seed(7).secret  # numpy's ints are ints
    for wrong in ("7", 7.0, True, np.float64(7)):
        with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
            ReleaseKey.from_seed(wrong)  # type: ignore[arg-type]


def test_key_repr_hides_the_secret() -> None:
    key = fast_key(4)
    assert key.secret.hex() not in repr(key) and key.secret.hex()[:8] not in repr(key)
    assert key.fingerprint() not in key.secret.hex()


def test_key_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "release.key"
    written = write_key_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert ReleaseKey.from_file(path).secret == written.secret
    with pytest.raises(ConfigError, match="never overwritten"):
        write_key_file(path)
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    with pytest.raises(ConfigError, match="64 hexadecimal digits"):
        ReleaseKey.from_file(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        ReleaseKey.from_file(tmp_path / "missing.key")


def test_degenerate_and_exposed_key_files(tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    zero = tmp_path / "zero.key"
    zero.write_text("00" * 32 + "\n")
    zero.chmod(0o600)
    with pytest.raises(ConfigError, match="equal bytes"):
        ReleaseKey.from_file(zero)
    shared = tmp_path / "shared.key"
    write_key_file(shared)
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(shared)
    assert not caplog.records  # mode 0600: no warning
    shared.chmod(0o640)  # a group's shared key: used, with one warning
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(shared)
    assert len(caplog.records) == 1 and "0640" in caplog.records[0].getMessage()
    assert shared.read_text().strip() not in caplog.text  # the warning never shows the key
    for mode in (0o644, 0o602):  # every user may read it, or change it: refused (audit defect 14)
        shared.chmod(mode)
        with pytest.raises(ConfigError, match=f"every user \\(mode {mode:04o}\\)"):
            ReleaseKey.from_file(shared)
    with pytest.raises(ConfigError, match="standard output"):
        write_key_file("-")


def _accounts(monkeypatch: pytest.MonkeyPatch, *, group: str, members: tuple[str, ...] = (),
              others_primary: bool = False) -> None:
    """Account databases in which the directory owner (this process's uid), ``me``, has primary
    group ``group`` (this process's gid) listing ``members``; ``others_primary``: another
    account has that group as its primary group too."""
    import grp
    import pwd
    from types import SimpleNamespace

    uid, gid = os.getuid(), os.getgid()
    me = SimpleNamespace(pw_name="me", pw_uid=uid, pw_gid=gid)
    other = SimpleNamespace(pw_name="other", pw_uid=uid + 1, pw_gid=gid if others_primary else gid + 1)
    monkeypatch.setattr(pwd, "getpwuid", lambda n: {uid: me}[n])
    monkeypatch.setattr(pwd, "getpwall", lambda: [me, other])
    monkeypatch.setattr(grp, "getgrgid", lambda n: {gid: SimpleNamespace(gr_name=group, gr_gid=gid,
                                                                          gr_mem=list(members))}[n])


def test_a_key_in_a_directory_others_can_write_is_refused_or_warned(tmp_path, caplog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Left by the audits: a key file of mode 0600 in a directory every user may write (0777)
    was used silently, though anyone could swap in a key they know. Refused, like a key file
    every user may change; a group-writable directory warns, like a group-readable key file; a
    sticky directory (/tmp: 1777) is fine. A symbolic link in an open directory is refused too:
    the link can be swapped even when the key it points to cannot."""
    _accounts(monkeypatch, group="staff", members=("me", "other"))  # a group others are in
    folder = tmp_path / "keys"
    folder.mkdir(mode=0o700)
    key = folder / "release.key"
    write_key_file(key)
    folder.chmod(0o777)
    with pytest.raises(ConfigError, match=f"^key file {key} is in {folder}, a directory every user can "
                                          "write \\(mode 0777\\)"):
        ReleaseKey.from_file(key)
    folder.chmod(0o1777)  # sticky: only the owner may replace the file
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(key)
    assert not caplog.records
    folder.chmod(0o770)
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(key)
    assert len(caplog.records) == 1 and "its group can write (mode 0770)" in caplog.text
    assert f"'chmod g-w {folder}'" in caplog.text and f"'chmod +t {folder}'" in caplog.text
    assert key.read_text().strip() not in caplog.text
    folder.chmod(0o700)
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    (open_folder / "link.key").symlink_to(key)
    with pytest.raises(ConfigError, match="a directory every user can write"):
        ReleaseKey.from_file(open_folder / "link.key")


def test_a_key_of_equal_bytes_is_refused_by_the_constructor_too() -> None:
    for secret in (b"a" * 32, bytes(32)):
        with pytest.raises(ConfigError, match="32 equal bytes, which is no secret"):
            ReleaseKey(secret)


def test_an_empty_key_file_path_is_named() -> None:
    with pytest.raises(ConfigError, match="^key file path is empty; name a file$"):
        write_key_file("")


@pytest.mark.parametrize("origin", [5, "bogus", None])
def test_a_key_origin_outside_the_four_is_refused(origin: object) -> None:
    """The origin decides the --seed and --fresh-key warnings; QA pass 5 built a key of origin 5."""
    with pytest.raises(ConfigError, match="origin must be one of file, default, fresh, seed"):
        ReleaseKey(bytes(range(32)), origin)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [1, 3, 385])
def test_words_of_scattered_ordinals_are_their_keystream_slices(count: int) -> None:
    """Tokens at any ordinals (odd and even first halves, gaps, repeats) read the keystream words
    [ordinal * count, (ordinal + 1) * count) of their record's stream."""
    key = fast_key(3)
    source = NoiseSource(key)
    ordinals = np.array([7, 0, 3, 3, 12, 1])
    tags = np.repeat(source.tags([b"record-b"]), len(ordinals), axis=0)
    words = source.noise(tags, Stage.FALLBACK, ordinals).words(count, stream=2)
    reference = ctr_words(key, b"record-b", int(Stage.FALLBACK), 2, 13 * count)
    for row, o in zip(words, ordinals, strict=True):
        assert row.tolist() == reference[o * count : (o + 1) * count]


@pytest.mark.parametrize(("group", "members", "others_primary", "warned"), [
    ("me", (), False, False),  # umask 002's directory: the owner's private group
    ("me", ("me",), False, False),
    ("me", ("other",), False, True),  # another member listed
    ("me", (), True, True),  # another account's primary group
    ("staff", (), False, True),  # a group named otherwise
])
def test_a_key_in_the_owners_private_group_directory_is_not_warned_about(
        tmp_path, caplog, monkeypatch, group: str, members: tuple[str, ...], others_primary: bool,  # type: ignore[no-untyped-def]
        warned: bool) -> None:
    """Left by the audits: under ``umask 002`` every new directory is 0775, so a key made with
    ``keygen`` (0600) in one warned on every run, though the group is the owner's own and lets
    no one else in (decision 0410). Silent then; any group another account is in still warns,
    and a directory every user can write is still refused, whatever its group."""
    _accounts(monkeypatch, group=group, members=members, others_primary=others_primary)
    folder = tmp_path / "keys"
    folder.mkdir()
    key = folder / "release.key"
    write_key_file(key)
    folder.chmod(0o775)
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(key)
    assert len(caplog.records) == warned
    folder.chmod(0o777)
    with pytest.raises(ConfigError, match="a directory every user can write"):
        ReleaseKey.from_file(key)


def test_an_unknown_directory_group_is_treated_as_shared(tmp_path, caplog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """When the account databases cannot name the directory's group, it may hold anyone: warned."""
    import grp

    def unknown(gid: int) -> object:
        raise KeyError(gid)

    monkeypatch.setattr(grp, "getgrgid", unknown)
    folder = tmp_path / "keys"
    folder.mkdir()
    write_key_file(folder / "release.key")
    folder.chmod(0o770)
    with caplog.at_level("WARNING"):
        ReleaseKey.from_file(folder / "release.key")
    assert len(caplog.records) == 1 and "its group can write" in caplog.text
