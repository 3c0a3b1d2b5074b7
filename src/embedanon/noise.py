"""Keyed randomness addressed by position: every random number is a pure function of
(release key, record, stage, stream, index).

Why not a seeded stream per record: a stream makes output depend on how many numbers earlier
steps drew, numpy's PCG64 is not a cryptographic generator, and a stream seeded afresh for every
release lets an attacker intersect releases. Here noise is a keyed pseudo-random function:

    word(record, stage, stream, i) = half (i mod 2) of AES-256_K(tag(record) | stage | stream | i // 2)

AES under a secret key is a pseudo-random permutation; evaluated on distinct counter blocks it is
the keystream of AES-CTR, the standard way to stretch a 256-bit key into random bits. The block
layout (big-endian, 128 bits):

    72 bits  record tag = BLAKE2b-72 keyed by the release key, of the record's identity
     4 bits  stage (mechanism, out-of-vocabulary fallback, leak-guard redraw, codes, ...)
    12 bits  stream within the stage (e.g. the round of a rejection sampler)
    40 bits  block index (two 64-bit words per block)

Stages never share blocks, so adding a stage changes no other stage's output; one record's
numbers do not depend on any other record, on batching, on worker count or on the engine. The
same key, record and position always give the same number, so re-releasing the same data under
the same key releases exactly the same text.

A :class:`ReleaseKey` is 32 secret bytes: from a key file (``embedanon keygen``; the user's
default key file is one, see :mod:`embedanon.keys`), fresh from the OS (``--fresh-key``), or, for
experiments only, derived from a small integer seed with scrypt (a slow KDF, so that guessing a
seed costs about 0.1 s and 32 MiB each; a small seed is still guessable: never release with
``--seed``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import stat
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from ._validate import seed_int
from .errors import ConfigError

log = logging.getLogger(__name__)

KEY_BYTES = 32
#: The most bytes a key file is read for: 64 hex digits, a line end and some blanks.
MAX_KEY_FILE_BYTES = 2 * KEY_BYTES + 64
#: Where a key came from: a key file, the user's default key file (:mod:`embedanon.keys`), fresh
#: from the OS (``--fresh-key``) or derived from a seed (experiments).
KEY_ORIGINS = ("file", "default", "fresh", "seed")
TAG_BYTES = 9
_BLOCK_INDEX_BITS = 40
_STREAM_BITS = 12
_SCRYPT = {"n": 1 << 15, "r": 8, "p": 1, "maxmem": 64 << 20}
_SEED_SALT = b"embedanon seed key v1"
_U53 = 2.0**-53


class Stage(IntEnum):
    """Stages that draw noise; each owns its counter space (at most 16)."""

    MECHANISM = 1
    FALLBACK = 2  # a word with no vector at all: uniform candidate
    GUARD = 3  # leak-guard redraw of an out-of-vocabulary word
    CODES = 4  # digits and letters of numbers and codes
    DOMAIN = 5  # top-level domains of e-mail and URL hosts (public list)
    SHAPE = 6  # hybrid scope's name guard: a word written like a name redrawn (pipeline.nameguard)
    EXPERIMENT = 15  # statistics (calibration, attacks) that need keyed noise


#: a "path" that is a key's hexadecimal digits (pasted from a secret store instead of a file name)
_KEY_LIKE = re.compile(r"\s*(?:[0-9a-fA-F]{2}){16,}\s*")


def key_path_shown(path: str | os.PathLike[str]) -> str:
    """``path`` as messages show it: a value that looks like a key itself (32 or more hexadecimal
    digits, or several lines) is never echoed, since a message may end in a log."""
    text = os.fspath(path)
    if _KEY_LIKE.fullmatch(text) or "\n" in text or "\r" in text:
        return "(a value that looks like a key itself, not a file's path)"
    return text


def check_key_directories(path: str | os.PathLike[str], shown: str) -> None:
    """Refuse a key file whose directory every user may write (without the sticky bit, which
    /tmp has): anyone could replace the key with one they know, and the releases made with it
    would carry noise they can replay. A directory its group may write gets one warning, as a
    key file its group may read does (decision 0405), unless that group is the directory
    owner's own private group, where the group's write bit lets no one else in (decision 0410:
    ``umask 002`` makes every new directory so). Both the directory of the path given and that
    of the file a symbolic link points to are checked: either lets the key be swapped. Reading a
    key (:meth:`ReleaseKey.from_file`) and writing one (:func:`embedanon.keys.write_key_file`)
    check alike, so ``keygen`` never writes a key that ``--key`` would then refuse.

    Raises:
        ConfigError: a directory every user can write holds ``path`` or the file it links to."""
    folders = dict.fromkeys(os.path.dirname(p) for p in (os.path.abspath(path), os.path.realpath(path)))
    for folder in folders:
        try:
            st = os.stat(folder)
        except OSError:  # the file was just read: a folder that vanished since has nothing to say
            continue
        bits = stat.S_IMODE(st.st_mode)
        if bits & stat.S_ISVTX:  # only a file's owner may rename or remove it there
            continue
        if bits & stat.S_IWOTH:
            raise ConfigError(f"key file {shown} is in {folder}, a directory every user can write "
                              f"(mode {bits:04o}), so anyone could replace the key with one they know: "
                              f"'chmod o-w {folder}', or keep the key in a private directory")
        if bits & stat.S_IWGRP and not owner_only_group(st.st_uid, st.st_gid):
            log.warning("key file %s is in %s, a directory its group can write (mode %04o), so the group "
                        "could replace the key: 'chmod g-w %s'; if the group is meant to write there, "
                        "'chmod +t %s' (then only a file's owner can replace it) also ends this warning",
                        shown, folder, bits, folder, folder)


def owner_only_group(uid: int, gid: int) -> bool:
    """Whether group ``gid`` holds no account but user ``uid``: it is that user's private group
    (named as the user, the user's primary group, listing no other member) and no other account
    has it as its primary group. Under such a group a directory's group write bit gives no one
    but its owner a way in. False whenever the account databases cannot say (no ``pwd``/``grp``
    module, an unknown id): then the group is treated as shared."""
    try:
        import grp
        import pwd

        owner = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
        if group.gr_name != owner.pw_name or owner.pw_gid != gid:
            return False
        if any(member != owner.pw_name for member in group.gr_mem):
            return False
        return all(account.pw_uid == uid for account in pwd.getpwall() if account.pw_gid == gid)
    except (ImportError, KeyError, OverflowError, OSError):
        return False


@dataclass(frozen=True, slots=True)
class ReleaseKey:
    """The 256-bit secret of a release. Never printed: ``repr`` shows only where it came from.

    Attributes:
        secret: 32 bytes.
        origin: one of :data:`KEY_ORIGINS` (for provenance records and warnings).
    """

    secret: bytes = field(repr=False)
    origin: str = "fresh"

    def __post_init__(self) -> None:
        if not isinstance(self.secret, bytes) or len(self.secret) != KEY_BYTES:
            raise ConfigError(f"a release key is {KEY_BYTES} bytes")
        if self.origin not in KEY_ORIGINS:  # it decides the --seed and --fresh-key warnings
            raise ConfigError(f"a release key's origin must be one of {', '.join(KEY_ORIGINS)}")
        if len(set(self.secret)) == 1:  # as from_file refuses it: b"\0" * 32 is no secret
            raise ConfigError(f"the release key holds {KEY_BYTES} equal bytes, which is no secret "
                              "(write one with 'embedanon keygen')")

    @classmethod
    def fresh(cls) -> ReleaseKey:
        """A new key from the operating system's entropy (``--fresh-key``): a release under it is
        a new draw of every word, so releasing the same data again this way composes."""
        return cls(os.urandom(KEY_BYTES), "fresh")

    @classmethod
    def from_seed(cls, seed: int) -> ReleaseKey:
        """Key derived from an integer seed with scrypt: reproducible experiments, not releases."""
        seed = seed_int(seed, maximum=2**256 - 1)  # no larger than a key (and str() can write it)
        secret = hashlib.scrypt(str(seed).encode(), salt=_SEED_SALT, dklen=KEY_BYTES, **_SCRYPT)
        return cls(secret, "seed")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, origin: str = "file") -> ReleaseKey:
        """Read a key file written by ``embedanon keygen`` (:func:`embedanon.keys.write_key_file`):
        64 hexadecimal digits and a line end.

        At most :data:`MAX_KEY_FILE_BYTES` + 1 bytes are read, so a device (``/dev/zero``) or a
        huge file fails at once; a pipe (``--key <(vault read ...)``) is fine. A key of 32 equal
        bytes is refused: it is no secret. A regular key file that every user may read or write
        is refused (anyone could replay the noise of every release made with it); one its group
        may read or write is used with one warning (a team's shared key may be meant so). So is
        a key file in a directory every user, or its group, may write (anyone could replace it;
        a sticky directory such as /tmp is fine).

        Raises:
            ConfigError: the file cannot be read or holds no usable key.
        """
        shown = key_path_shown(path)
        try:
            with open(path, "rb") as fh:
                mode = os.fstat(fh.fileno()).st_mode
                raw = b"" if stat.S_ISDIR(mode) else fh.read(MAX_KEY_FILE_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read key file {shown}: {exc.strerror or type(exc).__name__}") from None
        secret = b""
        if len(raw) <= MAX_KEY_FILE_BYTES:
            try:
                secret = bytes.fromhex(raw.strip().decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                secret = b""
        if len(secret) != KEY_BYTES:
            raise ConfigError(f"key file {shown} must hold {2 * KEY_BYTES} hexadecimal digits "
                              "(write one with 'embedanon keygen FILE')")
        if len(set(secret)) == 1:
            raise ConfigError(f"key file {shown} holds {KEY_BYTES} equal bytes, which is no secret "
                              "(write one with 'embedanon keygen FILE')")
        if stat.S_ISREG(mode):
            bits = stat.S_IMODE(mode)
            if bits & (stat.S_IROTH | stat.S_IWOTH):
                raise ConfigError(f"key file {shown} can be read or changed by every user (mode "
                                  f"{bits:04o}), so anyone could replay its releases' noise: 'chmod 600' "
                                  "it, and treat what was released with it as exposed")
            if bits & (stat.S_IRGRP | stat.S_IWGRP):
                log.warning("key file %s can be read by its group (mode %04o); 'chmod 600' it unless "
                            "the group is meant to share it", shown, bits)
            check_key_directories(path, shown)
        return cls(secret, origin)

    def subkey(self, purpose: str) -> bytes:
        """A 32-byte key for one purpose, independent of every other purpose's."""
        return hmac.new(self.secret, b"embedanon/" + purpose.encode(), hashlib.sha256).digest()

    def prf(self, purpose: str) -> Prf:
        """Keyed pseudo-random function for ``purpose`` (surrogates, date shifts ...)."""
        return Prf(self.subkey(purpose))

    def record_prf(self, purpose: str, identity: bytes) -> Prf:
        """A PRF keyed by the release key AND one record (per-record choices, e.g. a date shift)."""
        return Prf(hmac.new(self.subkey(purpose), identity, hashlib.sha256).digest())

    def seal(self, purpose: str, data: bytes) -> bytes:
        """``data`` encrypted and authenticated under this key for ``purpose`` (AES-256-SIV).

        Deterministic: the same key, purpose and data give the same bytes, so a digest of them
        (a ``datasets`` cache fingerprint) is stable from run to run, yet it can neither be
        computed nor confirmed for guessed data without the key, and it changes with the key.
        """
        return self._siv(purpose).encrypt(data, None)

    def unseal(self, purpose: str, sealed: bytes) -> bytes:
        """The data :meth:`seal` sealed under this key for ``purpose``.

        Raises:
            ConfigError: sealed under another key or purpose, or altered.
        """
        try:
            return self._siv(purpose).decrypt(sealed, None)
        except InvalidTag:
            raise ConfigError(f"the {purpose} were sealed under another release key, or altered") from None

    def _siv(self, purpose: str) -> AESSIV:
        return AESSIV(self.subkey(purpose + "/siv-mac") + self.subkey(purpose + "/siv-ctr"))

    def fingerprint(self) -> str:
        """A short public digest identifying the key (safe to log; reveals nothing usable)."""
        return self.subkey("fingerprint")[:6].hex()


@dataclass(frozen=True, slots=True)
class Prf:
    """HMAC-SHA256 under a subkey: ``prf(context) -> 32 bytes``."""

    key: bytes = field(repr=False)

    def __call__(self, context: str | bytes) -> bytes:
        data = context.encode("utf-8", "surrogatepass") if isinstance(context, str) else context
        return hmac.new(self.key, data, hashlib.sha256).digest()


# ------------------------------------------------------------------------------------------------
# Record tags and keyed noise
# ------------------------------------------------------------------------------------------------
class NoiseSource:
    """The per-release machinery: record tags and the AES key, derived once from a key."""

    __slots__ = ("_aes", "_tag_key")

    def __init__(self, key: ReleaseKey) -> None:
        self._tag_key = key.subkey("record-tag")[:32]
        self._aes = algorithms.AES(key.subkey("noise"))

    def tags(self, identities: list[bytes]) -> np.ndarray:
        """Record tags of ``identities``: uint8 array (n, 9), keyed BLAKE2b of each identity."""
        key = self._tag_key
        joined = b"".join(hashlib.blake2b(ident, key=key, digest_size=TAG_BYTES).digest()
                          for ident in identities)
        return np.frombuffer(joined, dtype=np.uint8).reshape(len(identities), TAG_BYTES)

    def noise(self, tags: np.ndarray, stage: Stage, ordinals: np.ndarray) -> KeyedNoise:
        """Noise of token ``i`` = position ``ordinals[i]`` of stage ``stage`` in record ``tags[i]``."""
        return KeyedNoise(self, np.ascontiguousarray(tags, dtype=np.uint8), int(stage),
                          np.asarray(ordinals, dtype=np.uint64))

    def encrypt(self, blocks: bytes) -> bytes:
        encryptor = Cipher(self._aes, modes.ECB()).encryptor()
        return encryptor.update(blocks) + encryptor.finalize()


class Noise(Protocol):
    """Random words for n tokens. Row i belongs to token i whatever else is in the batch.

    A mechanism asks for ``words(count, stream)`` with the same ``count`` for a given ``stream``
    every time; then token i's numbers depend only on its own address.
    """

    def __len__(self) -> int: ...

    def words(self, count: int, stream: int = 0) -> np.ndarray:
        """uint64 array (n, count)."""
        ...

    def take(self, rows: np.ndarray) -> Noise:
        """The noise of tokens ``rows`` (same addresses, so the same numbers)."""
        ...


class KeyedNoise:
    """:class:`Noise` from AES-256 counter blocks (see the module docstring)."""

    __slots__ = ("_ordinals", "_source", "_stage", "_tags")

    def __init__(self, source: NoiseSource, tags: np.ndarray, stage: int, ordinals: np.ndarray) -> None:
        if tags.shape != (len(ordinals), TAG_BYTES):
            raise ValueError("one record tag per token is needed")
        if not 0 < stage < 16:
            raise ValueError(f"stage must be in 1..15, got {stage}")
        self._source = source
        self._tags = tags
        self._stage = stage
        self._ordinals = ordinals

    def __len__(self) -> int:
        return len(self._ordinals)

    def take(self, rows: np.ndarray) -> KeyedNoise:
        return KeyedNoise(self._source, self._tags[rows], self._stage, self._ordinals[rows])

    def words(self, count: int, stream: int = 0) -> np.ndarray:
        n = len(self._ordinals)
        if not 0 <= stream < 1 << _STREAM_BITS:
            raise ValueError(f"stream must be in [0, {1 << _STREAM_BITS}), got {stream}")
        if n == 0 or count == 0:
            return np.zeros((n, count), dtype=np.uint64)
        # token i owns words [a_i, a_i + count), a_i = ordinal * count; word w is half w % 2 of
        # block w // 2, so each block is encrypted once (not once per word) and the words are read
        # off the keystream from a_i's half on
        first = np.multiply(self._ordinals, np.uint64(count), dtype=np.uint64)
        last_block = np.right_shift(first + np.uint64(count - 1), np.uint64(1))
        if int(last_block.max()) >> _BLOCK_INDEX_BITS:
            raise ValueError("a record needs more than 2**41 random words in one stream")
        width = count // 2 + 1  # blocks that cover count words from either half
        block = np.minimum(np.right_shift(first, np.uint64(1))[:, None] + np.arange(width, dtype=np.uint64),
                           last_block[:, None])  # a block past the last one is never read
        hi = np.frombuffer(self._tags[:, :8].tobytes(), dtype=">u8").astype(np.uint64)
        lo = ((self._tags[:, 8].astype(np.uint64) << np.uint64(56))
              | np.uint64((self._stage << 52) | (stream << _BLOCK_INDEX_BITS)))
        plain = np.empty((n, width, 2), dtype=">u8")
        plain[:, :, 0] = hi[:, None]
        plain[:, :, 1] = lo[:, None] | block
        stream_words = np.frombuffer(self._source.encrypt(plain.tobytes()), dtype=">u8").reshape(n, 2 * width)
        odd = (first & np.uint64(1)).astype(bool)
        out = np.empty((n, count), dtype=np.uint64)
        out[~odd] = stream_words[~odd, :count]
        out[odd] = stream_words[odd, 1 : count + 1]
        return out


class GeneratorNoise:
    """:class:`Noise` from a numpy Generator, for statistics where tokens are exchangeable
    (calibration, attack likelihoods). Not addressed: every call draws fresh numbers, so use it
    only where the output need not be a function of position."""

    __slots__ = ("_n", "rng")

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        self.rng = rng
        self._n = int(n)

    def __len__(self) -> int:
        return self._n

    def take(self, rows: np.ndarray) -> GeneratorNoise:
        return GeneratorNoise(self.rng, len(np.arange(self._n)[rows]))

    def words(self, count: int, stream: int = 0) -> np.ndarray:
        return self.rng.integers(0, 1 << 64, size=(self._n, count), dtype=np.uint64, endpoint=False)


# ------------------------------------------------------------------------------------------------
# Turning words into numbers
# ------------------------------------------------------------------------------------------------
def uniform(noise: Noise, count: int, stream: int = 0) -> np.ndarray:
    """float64 (n, count) uniform on [0, 1) with 53 random bits each."""
    return (noise.words(count, stream) >> np.uint64(11)).astype(np.float64) * _U53


def integers(noise: Noise, high: int | np.ndarray, stream: int = 0) -> np.ndarray:
    """int64 (n,) uniform on [0, high) (``high`` a scalar or an (n,) array, each < 2**32).

    Lemire's multiply-shift on the top 32 bits of a word, with the bias removed by also using the
    low 32 bits: floor(w * high / 2**64) computed exactly in two halves; its bias is at most
    high / 2**64.
    """
    w = noise.words(1, stream)[:, 0]
    high_arr = np.broadcast_to(np.asarray(high, dtype=np.uint64), w.shape)
    if len(high_arr) and (high_arr.max() >= 1 << 32 or high_arr.min() < 1):
        raise ValueError("high must be in [1, 2**32)")
    top = w >> np.uint64(32)
    low = w & np.uint64(0xFFFFFFFF)
    # (top * 2**32 + low) * high / 2**64 = (top * high + (low * high) / 2**32) / 2**32
    carry = (low * high_arr) >> np.uint64(32)
    return ((top * high_arr + carry) >> np.uint64(32)).astype(np.int64)
