"""Features of a detected span in its context, for the local verifier (:mod:`.verify`).

Each candidate span becomes a list of named binary features (hashed into ``buckets`` weights by
``zlib.crc32``, stable across processes) and a short dense vector (:data:`DENSE_NAMES`). What
they describe:

* the span: its label, the detectors that found it, their score, its shape and letter case, how
  many words it has, how frequent its words are in public English (``embedanon.lexicon``: rank
  bands of the 100,000-word wordfreq list), the word itself when it is one of the 20,000 most
  frequent public words, repeated letters (``Aaaugh``, ``Shh``), how often it recurs in the text
  and whether it also occurs in lower case there;
* its place: at the start of a line, a line-start speaker label (``BLACK KNIGHT:``), the first
  words of a speaker's turn, the start of a sentence, inside ``[...]`` stage directions, after a
  title (``Dr.``, ``Sir``);
* its context: the previous and next word (the word when it is a common public word, else its
  shape), the characters right before and after (``!``, ``:``, ``,``, a line end), and the text's
  case (all lower, all upper) and layout (several speaker-label lines: a transcript).

The same function featurizes training data (``research/detection/verifier/``) and text at run
time, so the two cannot drift apart. Pure functions of (text, spans); no state.
"""

from __future__ import annotations

import math
import re
import zlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import cached_property, lru_cache

import numpy as np

from .._english import ADDRESS_TITLE_ALTERNATION
from ..lexicon import word_frequencies
from ..structure import VOICE_OPEN
from .base import Span

#: bump when a feature changes meaning: the shipped weights name the version they were fitted on
FEATURE_VERSION = 1
#: the names of the dense columns, in order
DENSE_NAMES: tuple[str, ...] = ("score", "log_chars", "digit_share", "upper_share", "rarity", "line_position")
#: public words that count as common: identities and neighbor words are named only for these
COMMON_RANK = 20_000
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*|\d+")
#: a line-start speaker or role label: up to five words (or ``#2``) and a colon, then a space
_LABEL = re.compile(r"^[ \t]*([^\W\d_][\w .#'\u2019&-]{0,38}?)[ \t]*:(?=[ \t]|$)", re.M)
#: a caption's voice tag, which is a speaker label too (``<v Amara Okafor>``, decision 0194)
_VOICE = re.compile(rf"^[ \t]*{VOICE_OPEN}([^\W\d_][\w .#'\u2019&-]{{0,38}}?)[ \t]*[>:]", re.M)
_TITLE_BEFORE = re.compile(rf"(?<!\w)({ADDRESS_TITLE_ALTERNATION})"
                           r"(?:\.[ \t\u00a0]*|[ \t\u00a0]+)\Z", re.IGNORECASE)
_NEWLINE = re.compile("\n")
_OPEN = re.compile(r"\[")
_CLOSE = re.compile(r"\]")
_REPEAT = re.compile(r"([^\W\d_])\1\1|^(?:[^\W\d_]{1,3})(?:[ -][^\W\d_]{1,3})+$", re.IGNORECASE)
_WINDOW = 64
_BANDS = ((1_000, "1k"), (5_000, "5k"), (20_000, "20k"), (100_000, "100k"))


@lru_cache(maxsize=1)
def public_ranks() -> dict[str, int]:
    """{lower-case word: rank} of the bundled public English word list (1 = most frequent)."""
    freqs = word_frequencies()
    ordered = sorted(freqs, key=lambda w: (-freqs[w], w))
    return {word: i for i, word in enumerate(ordered, 1)}


def _band(rank: int | None) -> str:
    if rank is None:
        return "oov"
    return next(name for limit, name in _BANDS if rank <= limit)


def _shape(chunk: str) -> str:
    """Case/digit shape with runs collapsed: ``McDonald`` -> ``XxXx``, ``2023-01`` -> ``d-d``."""
    out: list[str] = []
    for ch in chunk:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else (
            " " if ch.isspace() else ch)
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:12]


def _case(chunk: str) -> str:
    letters = [ch for ch in chunk if ch.isalpha()]
    if not letters:
        return "none"
    if all(ch.islower() for ch in letters):
        return "lower"
    if all(ch.isupper() for ch in letters):
        return "upper"
    words = _WORD.findall(chunk)
    if all(w[:1].isupper() and (w[1:].islower() or not any(c.isalpha() for c in w[1:]))
           for w in words if w[:1].isalpha()):
        return "title"
    return "mixed"


def _char_class(ch: str) -> str:
    if ch == "":
        return "edge"
    if ch == "\n":
        return "eol"
    if ch.isspace():
        return "space"
    if ch.isalpha():
        return "letter"
    if ch.isdigit():
        return "digit"
    return ch


class TextView:
    """What every span of one text shares: its lines, speaker labels, word counts and case.

    Args:
        text: the text the spans index.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.labels = {m.start(1): m.end(1) for m in _LABEL.finditer(text)}
        if "<v" in text:
            self.labels.update((m.start(1), m.end(1)) for m in _VOICE.finditer(text))
        self.label_ends = {(text.rfind("\n", 0, a) + 1): b for a, b in self.labels.items()}
        self.transcript = len(self.labels) >= 2
        words = _WORD.findall(text)
        self.counts = Counter(w.lower() for w in words)
        self.lower_words = {w for w in words if w.islower()}
        self.case = "lower" if not any(ch.isupper() for ch in text) else (
            "upper" if not any(ch.islower() for ch in text) else "mixed")

    @cached_property
    def _newlines(self) -> list[int]:
        return [m.start() for m in _NEWLINE.finditer(self.text)]

    @cached_property
    def _brackets(self) -> tuple[list[int], list[int]]:
        text = self.text
        return [m.start() for m in _OPEN.finditer(text)], [m.start() for m in _CLOSE.finditer(text)]

    def line_start(self, i: int) -> int:
        """``text.rfind("\\n", 0, i) + 1``, by binary search (a long line made that scan quadratic)."""
        k = bisect_left(self._newlines, i)
        return self._newlines[k - 1] + 1 if k else 0

    def line_end(self, i: int) -> int:
        """``text.find("\\n", i)``, or the text's length, by binary search."""
        k = bisect_left(self._newlines, i)
        return self._newlines[k] if k < len(self._newlines) else len(self.text)

    def in_brackets(self, a: int, i: int) -> bool:
        """``text.rfind("[", a, i) > text.rfind("]", a, i)``: the last square bracket in
        ``text[a:i]`` opens one."""
        opens, closes = self._brackets
        k, j = bisect_left(opens, i), bisect_left(closes, i)
        last_open = opens[k - 1] if k and opens[k - 1] >= a else -1
        last_close = closes[j - 1] if j and closes[j - 1] >= a else -1
        return last_open > last_close


#: characters a word may continue through (``_WORD``'s letters, digits and joiners)
def _in_word(ch: str) -> bool:
    return ch.isalnum() or ch in "'\u2019-"


def neighbor_words(text: str, start: int, end: int, line_a: int,
                   line_b: int) -> tuple[str | None, str | None]:
    """The last word of ``text[line_a:start]`` and the first of ``text[end:line_b]`` (None: none),
    read from windows of about :data:`_WINDOW` characters widened to whole words (the whole line
    when a window holds no word), so a span costs the same on a long line as on a short one
    (:func:`neighbor_words_reference` reads the whole line)."""
    a = max(line_a, start - _WINDOW)
    while a > line_a and _in_word(text[a - 1]):
        a -= 1
    b = min(line_b, end + _WINDOW)
    while b < line_b and _in_word(text[b]):
        b += 1
    before = _WORD.findall(text, a, start) or _WORD.findall(text, line_a, start)
    after = _WORD.search(text, end, b) or _WORD.search(text, end, line_b)
    return (before[-1] if before else None), (after.group() if after else None)


def neighbor_words_reference(text: str, start: int, end: int, line_a: int,
                             line_b: int) -> tuple[str | None, str | None]:
    """:func:`neighbor_words` by reading the whole line on each side."""
    before, after = _WORD.findall(text[line_a:start]), _WORD.findall(text[end:line_b])
    return (before[-1] if before else None), (after[0] if after else None)


def _word_feature(prefix: str, word: str | None, ranks: dict[str, int]) -> str:
    if word is None:
        return f"{prefix}=<none>"
    lower = word.lower()
    rank = ranks.get(lower)
    if word.isdigit():
        return f"{prefix}=<digits{min(len(word), 5)}>"
    if rank is not None and rank <= COMMON_RANK:
        return f"{prefix}={lower}"
    return f"{prefix}=<{_band(rank)}:{_shape(word)[:4]}>"


def span_features(view: TextView, span: Span) -> tuple[list[str], list[float]]:
    """The named binary features and the dense values (:data:`DENSE_NAMES`) of one span.

    Args:
        view: the span's text (:class:`TextView`).
        span: a span inside ``view.text``.

    Returns:
        (feature names, dense values) — the names are hashed by :func:`hash_features`.
    """
    text, ranks = view.text, public_ranks()
    value = text[span.start:span.end]
    words = _WORD.findall(value)
    lowers = [w.lower() for w in words]
    word_ranks = [ranks.get(w) for w in lowers if not w.isdigit()]
    known = [r for r in word_ranks if r is not None]
    common = min(known) if known else None
    rarest = None if (not word_ranks or None in word_ranks) else max(known)
    label, case, shape = span.label, _case(value), _shape(value)
    sources = sorted(set(span.source.split("+"))) if span.source else ["<none>"]
    line_a, line_b = view.line_start(span.start), view.line_end(span.start)
    # the white space before and after the span on its line, read char by char (slicing and
    # stripping the rest of the line was quadratic in a long line's length)
    a = span.start
    while a > line_a and text[a - 1].isspace():
        a -= 1
    b = span.end
    while b < line_b and text[b].isspace():
        b += 1
    prev_word, next_word = neighbor_words(text, span.start, span.end, line_a, line_b)
    label_end = view.label_ends.get(line_a)
    at_line_start = a == line_a
    is_label = span.start in view.labels or (label_end is not None and span.end <= label_end)
    turn_start = (label_end is not None and span.start > label_end
                  and not _WORD.search(text, label_end, span.start))
    before_char = text[a - 1] if a > line_a else ""  # the line's last character before, not white space
    sentence_start = at_line_start or turn_start or before_char in (".", "!", "?", "\"", "(")
    title = _TITLE_BEFORE.search(text, max(0, span.start - 40), span.start)
    occurrences = view.counts.get(" ".join(lowers), 0) if len(words) == 1 else 0
    bracket = view.in_brackets(line_a, span.start)
    prev_ch = text[span.start - 1] if span.start else ""
    next_ch = text[span.end] if span.end < len(text) else ""
    names = [
        f"label={label}",
        *(f"source={s}" for s in sources),
        f"sources={'+'.join(sources)}|{label}",
        f"case={case}|{label}",
        f"shape={shape}|{label}",
        f"words={min(len(words), 4)}|{label}",
        f"band={_band(common)}|{case}|{label}",
        f"rarest={_band(rarest) if word_ranks else 'none'}|{label}",
        f"text_case={view.case}|{case}|{label}",
        f"prev_char={_char_class(prev_ch)}|{label}",
        f"next_char={_char_class(next_ch)}|{label}",
        _word_feature("prev", prev_word, ranks) + f"|{label}",
        _word_feature("next", next_word, ranks) + f"|{label}",
        _word_feature("prev", prev_word, ranks),
        _word_feature("next", next_word, ranks),
    ]
    if len(words) == 1 and common is not None and common <= COMMON_RANK:
        names.append(f"word={lowers[0]}|{label}")
    flags = {
        "line_start": at_line_start, "speaker_label": is_label, "turn_start": turn_start,
        "sentence_start": sentence_start, "title_before": title is not None, "in_brackets": bracket,
        "transcript": view.transcript, "repeated_letters": bool(_REPEAT.search(value)),
        "lower_elsewhere": case != "lower" and len(words) == 1 and lowers[0] in view.lower_words,
        "recurs": occurrences >= 3, "exclaimed": next_ch == "!" or text[b:b + 1] == "!" and b < line_b,
    }
    names += [f"{flag}|{label}" for flag, on in flags.items() if on]
    if title is not None:
        names.append(f"title={title.group(1).lower()}|{label}")
    n_chars = span.end - span.start
    letters = sum(ch.isalpha() for ch in value)
    dense = [
        float(span.score),
        math.log1p(n_chars) / 4.0,
        sum(ch.isdigit() for ch in value) / n_chars,
        sum(ch.isupper() for ch in value) / letters if letters else 0.0,
        math.log10(rarest) / 5.0 if rarest is not None else (1.2 if word_ranks else 0.0),
        (span.start - line_a) / max(1, line_b - line_a),
    ]
    return names, dense


def hash_features(names: Sequence[str], buckets: int) -> np.ndarray:
    """int64 (len(names),) bucket ids of feature names (``crc32 % buckets``)."""
    return np.fromiter((zlib.crc32(n.encode("utf-8", "surrogatepass")) % buckets for n in names),
                       dtype=np.int64, count=len(names))


def featurize(text: str, spans: Sequence[Span], buckets: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Hashed ids (one int64 array per span) and the dense matrix float32 (S, len(DENSE_NAMES))."""
    view = TextView(text)
    ids: list[np.ndarray] = []
    dense = np.zeros((len(spans), len(DENSE_NAMES)), dtype=np.float32)
    for i, span in enumerate(spans):
        names, values = span_features(view, span)
        ids.append(hash_features(names, buckets))
        dense[i] = values
    return ids, dense
