"""NAME: realistic names of varied cultures, in the shape of the original span.

A span is read as chunks: titles (``Dr.``), suffixes (``Jr.``) and connectors (``Mr. and Mrs.``)
are kept, but only where a name part follows a title or connector (``Mike Judge`` is a name) and
precedes a suffix; initials stay initials (``J.`` → ``K.``, a different letter keyed by the whole
name, so initials do not form a corpus-wide letter cipher); every other name part is replaced by a
given name or a surname: with a comma (``Smith, John``) the parts before it are surnames;
otherwise the last of several parts is the surname, a lone part after a title is a surname, a
lone part takes the role it plays in the record's names of several parts (``context.roles``:
``Wei`` after ``Wei Zhang`` is a given name), and any other lone part is what the bundled lists
say it more often is (a surname when no list has it).
Hyphenated parts are replaced piece by piece, a possessive ``'s`` is kept, and so is the case
pattern of each part (``UPPER``, ``Title``, ``lower``). Lowercase particles (``van der Berg``) are
dropped with the space after them, as they name a culture.

Each part is keyed on its own (``prf("NAME\\x00surname\\x00smith")``), so ``John Smith``, ``Mr.
Smith`` and ``john`` in an e-mail address agree. The culture is drawn first, from a fixed mix that
does not depend on the original (``name_cultures``: every bundled group with one weight by
default, or a population of your own), then a name of the unit uniformly over all its locales'
lists (a name two locales list counts twice); a given name from every given name of the unit, or
of the original's gender when the lists give it one and ``name_gender="keep"``. So the surrogate's
culture and gender tell nothing of the original's (issue 33: drawing from a group *other* than the
original's let an attacker who knows the tool rule one out, 20 % -> 38 % culture-group inference on
real notes with injected names; gender was copied 96 % of the time). A locale was drawn first,
uniformly, until the lists of small locales dominated their units: the six Vietnamese surnames took
0.7 % of all surname draws each. Given names and surnames are drawn independently and a full name
can mix cultures. A candidate that equals or is a variant (:mod:`embedanon.leakguard`) of any
original part of the span, or of the record's other names (``context.avoid``, :mod:`.avoid`), is
drawn again from the same stream *in the same unit*, so the rule changes the name, never the
culture's odds.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from .._english import TITLES
from ..lexicon import weighty_name, word_ranks
from ..text import LOWER, UPPER, case_code, without_format
from .avoid import AvoidNames, key_pieces, pieces_of
from .base import Context, Stream
from .config import SurrogateConfig, name_data
from .keys import entity_key
from .shape import HYPHENS, MAX_ATTEMPTS, shaped

SUFFIXES = frozenset(
    ("jr", "sr", "ii", "iii", "iv", "md", "phd", "dds", "dmd", "rn", "np", "pa", "esq", "mba")
)
PARTICLES = frozenset((
    "van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le", "bin", "ibn", "al",
    "el", "ter", "ten",
))  # fmt: skip
CONNECTORS = frozenset(("and", "or", "und", "et", "y"))
_CHUNK = re.compile(r"\s+|,|[^\s,]+")
_EDGES = re.compile(r"^([\W_]*)(.*?)([\W_]*)$", re.DOTALL)  # ``liam_`` of a handle: ``liam`` and ``_``
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])*\.?")
#: the hyphens that join the pieces of a compound name (``Mary-Jane``, ``Mary‐Jane``)
_HYPHEN_SPLIT = re.compile(f"([{HYPHENS}])")
_WORD = re.compile(rf"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*(?:[{HYPHENS}][^\W\d_]+(?:['’ʼ][^\W\d_]+)*)*")
_POSSESSIVE = re.compile(r"^(.{2,}?)(['’ʼ][sS]?)$", re.DOTALL)  # ``Khan's``, ``KHAN'S``


@dataclass(frozen=True, slots=True)
class Pool:
    """Name lists of one locale; ``female``/``male``/``any`` given names and ``surnames``."""

    female: tuple[str, ...]
    male: tuple[str, ...]
    any: tuple[str, ...]
    surnames: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Per-locale pools, and for each known name key: the locales that list it and its roles.

    ``masks[key]`` has bit ``bits[locale]`` set for every locale listing ``key`` in any role.
    """

    pools: dict[str, Pool]
    groups: dict[str, tuple[str, ...]]
    bits: dict[str, int]
    masks: dict[str, int]
    given_count: dict[str, int]
    surname_count: dict[str, int]
    female_count: dict[str, int]
    male_count: dict[str, int]

    def mask(self, locales: Iterable[str]) -> int:
        """The bit mask of some locales."""
        out = 0
        for locale in locales:
            out |= 1 << self.bits[locale]
        return out

    def locales_of(self, key: str) -> frozenset[str]:
        """The locales whose lists contain the name key ``key``."""
        mask = self.masks.get(key, 0)
        return frozenset(locale for locale, bit in self.bits.items() if mask >> bit & 1)


#: a bundled name among this many of the most frequent public English words, and borne by too few
#: people to be a name first (:func:`~embedanon.lexicon.weighty_name`), is never drawn: it reads
#: as a word (``He``, ``Said``, ``Doctor``, ``Muslim``, ``London``; ``Toby He``'s chart became
#: ``He's chart``). It still counts as a name when read (a role, a locale of the original).
WORD_RANK = 3_000


def _drawable(names: list[str]) -> list[str]:
    ranks = word_ranks()
    return [n for n in names if ranks.get(n.lower(), WORD_RANK) >= WORD_RANK or weighty_name(n)]


def _list_key(name: str) -> str:
    # Bundled names are single tokens; most are ASCII, whose key is just the lower case.
    return name.lower() if name.isascii() else entity_key(name)


@cache
def lexicon() -> Lexicon:
    """The bundled lists as pools plus a name → (locales, role, gender) index (built once)."""
    data = name_data()
    pools: dict[str, Pool] = {}
    bits = {locale: i for i, locale in enumerate(data["locales"])}
    masks: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {"given": {}, "surname": {}, "female": {}, "male": {}}
    for locale, lists in data["locales"].items():
        female, male, other = lists["female"], lists["male"], lists["other"]
        d_female, d_male, d_other = _drawable(female), _drawable(male), _drawable(other)
        pools[locale] = Pool(
            female=tuple(d_female + d_other) or tuple(d_male),
            male=tuple(d_male + d_other) or tuple(d_female),
            any=tuple(dict.fromkeys(d_female + d_male + d_other)),
            surnames=tuple(_drawable(lists["surname"])),
        )
        bit = 1 << bits[locale]
        for role, names in (("female", female), ("male", male), ("given", female + male + other),
                            ("surname", lists["surname"])):  # fmt: skip
            table = counts[role]
            for key in set(map(_list_key, names)):
                table[key] = table.get(key, 0) + 1
                masks[key] = masks.get(key, 0) | bit
    return Lexicon(
        pools=pools,
        groups={group: tuple(locales) for group, locales in data["groups"].items()},
        bits=bits,
        masks=masks,
        given_count=counts["given"],
        surname_count=counts["surname"],
        female_count=counts["female"],
        male_count=counts["male"],
    )


_key = lru_cache(maxsize=1 << 16)(entity_key)  # list names recur: cache their keys


def _with_case(name: str, original: str) -> str:
    code = case_code(original)
    if code == UPPER:
        return name.upper()
    if code == LOWER and original.islower():  # ``d'Artagnan``, ``deSousa``: a name, not lower case
        return name.lower()
    return name  # title case (the bundled names are written so)


class NameMaker:
    """NAME surrogates (see the module docstring)."""

    label = "NAME"

    def __init__(self, config: SurrogateConfig) -> None:
        lex = lexicon()
        self._lexicon = lex
        mix = config.name_mix()
        # One unit = the locales one culture choice draws from (a group, or a single locale).
        self.units: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
            (item, lex.groups.get(item, (item,))) for item, _ in mix
        )
        # Integer weights (a millionth of the largest at least 1), so a draw is exact
        # (Stream.below) and the same in every process.
        top = max(weight for _, weight in mix)
        self._weights = tuple(max(1, round(weight / top * 1_000_000)) for _, weight in mix)
        self._total = sum(self._weights)
        self._keep_gender = config.name_gender == "keep"

    # -- one part ------------------------------------------------------------------------------
    def unit(self, stream: Stream) -> tuple[str, tuple[str, ...]]:
        """A culture unit drawn from the fixed mix (never from the original)."""
        at = stream.below(self._total)
        for unit, weight in zip(self.units, self._weights, strict=True):
            if at < weight:
                return unit
            at -= weight
        raise AssertionError("the weights sum to the total")  # pragma: no cover

    def role_of(self, key: str) -> str:
        """``"given"`` or ``"surname"`` for a lone part: the role more locales list it in; a part
        no locale lists is a surname (surnames are far more varied than given names, so a name the
        lists lack is most often one, and a detector's span leaves the title out: ``Dr.
        Featherstonehaugh`` must agree with ``Anna Featherstonehaugh``)."""
        lex = self._lexicon
        surname, given = lex.surname_count.get(key, 0), lex.given_count.get(key, 0)
        return "surname" if surname > given or surname == given == 0 else "given"

    def _pool(self, locale: str, role: str, key: str) -> tuple[str, ...]:
        pool = self._lexicon.pools[locale]
        if role == "surname":
            return pool.surnames
        if not self._keep_gender:
            return pool.any
        female = self._lexicon.female_count.get(key, 0)
        male = self._lexicon.male_count.get(key, 0)
        if female and not male:
            return pool.female
        if male and not female:
            return pool.male
        return pool.any

    def draw(self, role: str, key: str, stream: Stream, avoid: AvoidNames,
             taken: dict[str, str] | None = None) -> tuple[str, str]:
        """``(unit, name)`` for the name key ``key``: the culture unit drawn and the name in it,
        no piece of it a variant of ``key``'s pieces or of ``avoid``, and (with ``taken``, the
        record's surrogate keys -> the ``role\x00key`` they were drawn for) not a surrogate another
        part of the record already has; the name drawn is then entered in ``taken``."""
        avoid = avoid.plus(key_pieces(key))
        unit, locales = self.unit(stream)
        pools = [self._pool(locale, role, key) for locale in locales]
        size = sum(len(pool) for pool in pools)
        owner = f"{role}\x00{key}"

        def loose(candidate: str) -> bool:  # no piece of it a variant of a piece to avoid
            return not any(avoid.blocks(p) for p in key_pieces(_key(candidate)))

        def admissible(candidate: str) -> bool:  # nor another person's surrogate in this record
            return (taken is None or taken.get(_key(candidate), owner) == owner) and loose(candidate)

        unit, name = self._draw(unit, pools, size, stream, admissible, role, key, loose)
        if taken is not None:
            taken.setdefault(_key(name), owner)
        return unit, name

    def _draw(self, unit: str, pools: list[tuple[str, ...]], size: int, stream: Stream,
              admissible: Callable[[str], bool], role: str, key: str,
              loose: Callable[[str], bool]) -> tuple[str, str]:
        name = ""
        for _ in range(MAX_ATTEMPTS):
            i = stream.below(size)  # uniform over the unit's names
            for names in pools:
                if i < len(names):
                    name = names[i]
                    break
                i -= len(names)
            if admissible(name):
                return unit, name
        # Unlucky draws (a short name among many short ones): choose among the unit's admissible
        # names directly, so the rule never gives way; only a unit without one (a locale of a few
        # names, every one of them avoided) hands the draw to the others.
        pool = sorted({n for names in pools for n in names if admissible(n)})
        if pool:
            return unit, stream.choice(pool)
        # every name of the unit another person's already (a record with more names than a small
        # unit holds, ``name_cultures="vi_VN"``): share one rather than leave the chosen mix
        pool = sorted({n for names in pools for n in names if loose(n)})
        if pool:
            return unit, stream.choice(pool)
        rest = sorted({(u, n) for u, locs in self.units for loc in locs
                       for n in self._pool(loc, role, key) if admissible(n)})
        return stream.choice(rest) if rest else (unit, name)

    def part(self, role: str, original: str, context: Context, avoid: AvoidNames) -> str:
        """A surrogate for one name part (no separators), in the original's case pattern;
        ``avoid``: the pieces of the name's other parts and of ``context.avoid``."""
        key = entity_key(original)
        stream = context.entity(f"NAME\x00{role}\x00{key}")
        _, name = self.draw(role, key, stream, avoid, context.taken)
        return _with_case(name, original)

    def initial(self, letter: str, scope: str, context: Context) -> str:
        """A different letter for an initial, in the original's case; keyed by the whole name."""
        stream = context.entity(f"NAME\x00initial\x00{entity_key(letter)}\x00{scope}")
        letters = [ch for ch in string.ascii_uppercase if ch != entity_key(letter).upper()]
        new = stream.choice(letters)
        return new.lower() if letter.islower() else new

    # -- a span --------------------------------------------------------------------------------
    def make(self, text: str, context: Context) -> str:
        # format characters (soft hyphens, zero-width joiners) are no parts: Surrogates.replace
        # leaves them out of every span before a maker reads it (decision 0217)
        chunks = _CHUNK.findall(text)
        kinds = _kinds(chunks)
        parts = [i for i, kind in enumerate(kinds) if kind in ("word", "initial")]
        words = [i for i in parts if kinds[i] == "word"]
        roles = self._roles(chunks, kinds, parts, words, context.roles)
        exclude = [entity_key(piece) for i in words for piece in _pieces(_core(chunks[i]))]
        avoid = context.avoid.plus(pieces_of(exclude))  # pieces once per span, not once per part
        # initials are keyed by the name in one order, whatever order the span writes it in
        # (``J. Smith``, ``Smith J``, ``Smith, J.``: the same initial letter)
        order = sorted(parts, key=lambda i: roles.get(i) == "surname")  # stable: given parts first
        scope = entity_key(" ".join(_core(chunks[i]) for i in order))
        out = list(chunks)
        for i, kind in enumerate(kinds):
            if kind == "initial":
                out[i] = _replace_core(
                    chunks[i],
                    lambda core: _INITIAL_LETTER.sub(
                        lambda m: self.initial(m.group(0), scope, context), core
                    ),
                )
            elif kind == "word":
                out[i] = _replace_core(
                    chunks[i],
                    lambda core, i=i: "".join(
                        piece if k % 2 else self.part(roles[i], piece, context, avoid)
                        for k, piece in enumerate(_HYPHEN_SPLIT.split(core))
                    ),
                )
                if chunks[i].endswith(".") and any(j > i for j in parts):
                    # an abbreviation (``St. John``, ``Wm. Smith``) gets a whole name: no full stop
                    out[i] = out[i][:-1]
            elif kind == "particle":
                out[i] = ""
                if i + 1 < len(out) and chunks[i + 1].isspace():
                    chunks[i + 1] = out[i + 1] = ""
            elif kind == "other":
                out[i] = self._glued(chunks[i], context, avoid)
        return "".join(out)

    def _glued(self, chunk: str, context: Context, avoid: AvoidNames) -> str:
        """A chunk of name parts glued by other characters (``A.Kowalczyk``, ``jessica_smith``,
        ``maria_99``, ``Dr.Smith``): each run of two letters or more a name part of its own role
        (:meth:`role_of`) in its case, a title kept; single letters, digits and the rest in the
        same shape (decision 0220: random letters of each run's length had kept its length, so
        an attacker told two candidate names apart 9 times in 10)."""
        stream = context.entity(f"NAME\x00other\x00{entity_key(chunk)}")
        out, at = [], 0
        for m in _NAME_RUN.finditer(chunk):
            out.append(_glue(chunk[at : m.start()], stream))
            run = m.group()
            key = entity_key(run)
            out.append(run if run.lower() in TITLES else self.part(self.role_of(key), run, context, avoid))
            at = m.end()
        out.append(_glue(chunk[at:], stream))
        return "".join(out)

    def _roles(
        self, chunks: list[str], kinds: list[str], parts: list[int], words: list[int],
        record: Mapping[str, str],
    ) -> dict[int, str]:
        if (len(parts) == 1 and words) or _surname_initials(chunks, parts, words):
            # a lone part, or one before initials only (``Smith J``, ``Smith J.A.``): the initials
            # say nothing of its role, so it takes the one it has alone
            has_title = "title" in kinds[: words[0]]
            key = entity_key(_HYPHEN_SPLIT.split(_core(chunks[words[0]]))[0])
            return {words[0]: "surname" if has_title else record.get(key) or self.role_of(key)}
        return _several_roles(chunks, parts, words)


def _surname_initials(chunks: list[str], parts: list[int], words: list[int]) -> bool:
    """One word, then only initials and no comma (``Smith J``, ``Smith J.A.``, ``John S.``): the
    order of a reference list, or a given name and a surname's initial; which, only the record or
    the lists can say."""
    return len(parts) > 1 and words == parts[:1] and "," not in chunks


def _several_roles(chunks: list[str], parts: list[int], words: list[int]) -> dict[int, str]:
    """The roles of the words of a name of several parts: with a comma (``Smith, John``) the
    parts before it are surnames, otherwise the last part is the surname."""
    comma = next((i for i, c in enumerate(chunks) if c == ","), None)
    if comma is not None and any(i < comma for i in words) and any(i > comma for i in parts):
        return {i: "surname" if i < comma else "given" for i in words}
    return {i: "surname" if i == parts[-1] else "given" for i in words}


_INITIAL_LETTER = re.compile(r"[^\W\d_]")


def record_roles(names: Iterable[str]) -> dict[str, str]:
    """The role each name key plays in a record's NAME spans of several parts (``Wei Zhang``:
    ``wei`` given, ``zhang`` surname; ``Smith, John``: by the comma), for the keys that play one
    role only. A lone part of the record (``Wei``, ``Wei's``, ``WEI``) then takes that role and
    gets the same surrogate as in the full name, where the lists alone would call ``Wei`` a
    surname. Keys are those of each hyphen piece of a part."""
    seen: dict[str, set[str]] = {}
    for name in dict.fromkeys(names):
        if not name.isascii():
            name = without_format(name)
        chunks = _CHUNK.findall(name)
        kinds = _kinds(chunks)
        parts = [i for i, kind in enumerate(kinds) if kind in ("word", "initial")]
        words = [i for i in parts if kinds[i] == "word"]
        if len(parts) < 2 or _surname_initials(chunks, parts, words):
            continue  # no part of several whose role the span shows (``Smith J``: either way)
        for i, role in _several_roles(chunks, parts, words).items():
            for piece in _pieces(_core(chunks[i])):
                seen.setdefault(entity_key(piece), set()).add(role)
    return {key: next(iter(roles)) for key, roles in seen.items() if len(roles) == 1}


def _core(chunk: str) -> str:
    core = _EDGES.match(chunk).group(2)  # type: ignore[union-attr]
    possessive = _POSSESSIVE.match(core)
    return possessive.group(1) if possessive and _WORD.fullmatch(possessive.group(1)) else core


def _pieces(core: str) -> list[str]:
    return [piece for piece in _HYPHEN_SPLIT.split(core)[::2] if piece]


def _replace_core(chunk: str, replace) -> str:  # type: ignore[no-untyped-def]
    lead, core, trail = _EDGES.match(chunk).groups()  # type: ignore[union-attr]
    name = _core(chunk)
    return f"{lead}{replace(name)}{core[len(name) :]}{trail}"


def _classify(chunk: str) -> str:
    """What a chunk can be, before looking at its neighbors: ``space``, ``comma``, ``punct``,
    ``title``, ``suffix``, ``connector``, ``particle``, ``initial``, ``word`` or ``other``."""
    if chunk.isspace():
        return "space"
    if chunk == ",":
        return "comma"
    core = _core(chunk)
    if not core:
        return "connector" if chunk == "&" else "punct"
    lowered = core.lower().rstrip(".")
    if lowered in TITLES:
        return "title"
    if lowered.replace(".", "") in SUFFIXES and len(core) > 1:
        return "suffix"
    if core in CONNECTORS:
        return "connector"
    if len(core.rstrip(".")) <= 1 or _INITIALS.fullmatch(core) and "." in core:
        return "initial" if _INITIALS.fullmatch(core) else "other"
    if _WORD.fullmatch(core):
        return "particle" if core in PARTICLES else "word"
    return "other"


#: a run of two letters or more in a glued chunk: a name part (``Kowalczyk`` of ``A.Kowalczyk``)
_NAME_RUN = re.compile(r"[^\W\d_]{2,}")


def _glue(piece: str, stream: Stream) -> str:
    """What lies between the name parts of a glued chunk: its letters and digits in the same shape
    (an initial a random letter, ``99`` random digits), its separators as written."""
    return shaped(piece, stream) if any(ch.isalnum() for ch in piece) else piece


def _kinds(chunks: list[str]) -> list[str]:
    """Chunk kinds in context. A title, connector or particle only counts as one when a name part
    follows it (``Mike Judge``, ``Anna van``: names); a suffix only after a name part (``Jr``)."""
    kinds = [_classify(chunk) for chunk in chunks]
    later = [False] * len(kinds)  # a name part after i (as classified: later kinds are not changed yet)
    seen = False
    for i in range(len(kinds) - 1, -1, -1):
        later[i] = seen
        seen = seen or kinds[i] in ("word", "initial", "particle", "title")
    earlier = False  # a name part before i (as decided)
    for i, kind in enumerate(kinds):
        # a title or particle with no name part after it is one (``Mike Judge``, ``Anna van``); a
        # connector never is (``Zoë Ruiz and``: the span took in the next word, which stays)
        dangling = kind in ("title", "particle") and not later[i]
        if dangling or (kind == "suffix" and not earlier):
            kinds[i] = "word"
        earlier = earlier or kinds[i] in ("word", "initial")
    return kinds
