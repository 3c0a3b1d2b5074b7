"""English words the package needs in more than one place: counts in messages ("1 word", "2 words",
never "1 words") and the titles that stand before a person's name (and whether one does)."""

from __future__ import annotations

import re

#: titles of address written before a name (``Dr.``, ``Mrs``, ``Sister``, ``Capt.``), lower case
#: without a period: the verifier's features read these (``detectors.verify_features``: the list its
#: shipped weights were fitted on, so it stays as it is)
ADDRESS_TITLES = frozenset((
    "mr", "mrs", "ms", "mx", "dr", "prof", "miss", "mister", "madam", "madame", "mme", "mlle", "sir",
    "dame", "lady", "lord", "doctor", "professor", "rev", "revd", "reverend", "fr", "father", "sister",
    "capt", "captain", "col", "gen", "lt", "sgt", "hon", "judge", "governor",
))  # fmt: skip
#: the titles of an office or a calling written before a name (``Nurse Olga``, ``Officer Brown``,
#: ``Coach Davis``; decision 0193)
OFFICE_TITLES = frozenset((
    "nurse", "coach", "officer", "detective", "sheriff", "deputy", "inspector", "sergeant", "pastor",
    "rabbi", "imam", "mayor", "senator",
))  # fmt: skip
#: every title before a name: the detection rules read a NAME after one as a person's
#: (``detectors.rules.common``), and a name surrogate keeps one inside a NAME span as a title
#: (``surrogates.names``)
TITLES = ADDRESS_TITLES | OFFICE_TITLES
#: the titles that are abbreviations, which a period may follow (``Dr.``; ``the sheriff.`` ends a
#: sentence, ``Mr.`` does not: :func:`opens_clause`)
_ABBREVIATED_TITLES = frozenset((
    "mr", "mrs", "ms", "mx", "dr", "prof", "mme", "mlle", "rev", "revd", "fr", "capt", "col", "gen", "lt",
    "sgt", "hon",
))  # fmt: skip
#: words of three letters or more whose period after a name is an abbreviation's, not a
#: sentence's end (``John Smith Esq.``, ``Acme Inc.``)
NAME_ABBREVIATIONS = frozenset(("esq", "bros", "jnr", "snr", "inc", "ltd", "corp", "etc"))
#: street type words, lower case without a period (``Nevins Street``, ``5th Ave``): what makes an
#: ADDRESS surrogate's part a street line (``surrogates.fakes``) and where the street-edge decode
#: rule ends a street's span (``detectors.rules.streets``, which reads a few more)
STREET_TYPES = frozenset((
    "street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane", "ln", "drive", "dr",
    "court", "ct", "place", "pl", "square", "sq", "way", "terrace", "parkway", "pkwy", "highway", "hwy",
))  # fmt: skip
#: words that open a unit of an address, lower case without a period (``Apt 4``, ``Suite 12``,
#: ``Flat 3``): a secondary address for the ADDRESS surrogate (``surrogates.fakes``) and words that go
#: on an address after its street word for the street-edge decode rule (``detectors.rules.streets``)
UNIT_WORDS = frozenset(("apt", "apartment", "suite", "ste", "unit", "floor", "fl", "room", "rm", "flat"))


def alternation(words: frozenset[str]) -> str:
    """``words`` as one regular-expression alternation, longest first (``mrs`` before ``mr``)."""
    return "|".join(sorted(words, key=lambda t: (-len(t), t)))


#: :data:`TITLES` as one regular-expression alternation, longest first (``mrs`` before ``mr``)
TITLE_ALTERNATION = alternation(TITLES)
#: :data:`ADDRESS_TITLES` as one alternation (the verifier's features)
ADDRESS_TITLE_ALTERNATION = alternation(ADDRESS_TITLES)
#: a title ending where a name starts, on the same line: spaces, or after an abbreviation a period
#: and spaces or none (``Dr.Okafor``); not a period after a whole word (``the sheriff. Ick!``)
_TITLE_BEFORE = re.compile(rf"(?<!\w)(?:(?:{alternation(_ABBREVIATED_TITLES)})\.[ \t\u00a0]*"
                           rf"|(?:{TITLE_ALTERNATION})[ \t\u00a0]+)\Z", re.IGNORECASE)


#: nouns of kinship and close relations (``sister``, ``boss``, ``roommate``): the verifier never
#: drops a NAME right after one (decision 0111), and the ``kin`` rule reads the capitalized word
#: after ``my``/``her`` ... and one of them as a name (decision 0146); both also take the nouns with
#: ``step``/``grand``/``great-grand`` before them
RELATION_NOUNS: tuple[str, ...] = (
    "aunt", "auntie", "baby", "boss", "boyfriend", "brother", "caregiver", "carer", "child", "colleague",
    "coworker", "co-worker", "cousin", "dad", "daddy", "daughter", "father", "fiance", "fiancee", "fiancé",
    "fiancée", "flatmate", "friend", "girlfriend", "granny", "grandma", "grandpa", "guardian", "housemate",
    "husband", "kid", "mom", "mommy", "mother", "mum", "neighbor", "neighbour", "nephew", "niece", "partner",
    "roommate", "sibling", "sister", "son", "spouse", "uncle", "wife",
)
#: an initial or an abbreviated title before its period, which ends no sentence (``M. Night``,
#: ``Mr. Evening``; ``the doctor.`` does)
_INITIAL_BEFORE = re.compile(rf"(?<![^\W\d_])(?:[^\W\d_]|{alternation(_ABBREVIATED_TITLES)})\.\Z",
                             re.IGNORECASE)


def opens_clause(text: str, i: int) -> bool:
    """Whether ``text[i]`` opens its line, a speaker's turn or a sentence: the line before it, less
    spaces, is empty or ends in ``.``, ``!``, ``?``, ``:``, ``>`` or ``-``, and not in the period of
    an initial or an abbreviated title (``M. Night Shyamalan``, ``Mr. Evening Shade``)."""
    before = text[text.rfind("\n", 0, i) + 1 : i].rstrip(" \t")
    return not before or (before[-1] in ".!?:>-" and _INITIAL_BEFORE.search(before) is None)


#: what ends a clause or a line right after a word: spaces, then ``,.!?;:`` or the line's end (an
#: address by role, ``Thanks Doc.``, and a name addressed after a greeting, ``Bye Tomasz!``)
CLAUSE_END = re.compile(r"[ \t]*(?:[,.!?;:]|$)", re.MULTILINE)


#: greetings, thanks, farewells and congratulations a name follows (``Hi I-An!``, ``GOOD MORNING
#: THEMBILE.``, ``Bye Tomasz!``, ``Congrats Aiko!``) or a title that addresses someone by role (``Bye
#: Doctor!``), lower case: the decode rules read a name after one, trim one off a name's start, and the
#: verifier keeps the name a turn or a sentence opens with one (decisions 0025, 0187)
GREETINGS: tuple[str, ...] = (
    "hi", "hello", "hey", "dear", "thanks", "thank you", "good morning", "good afternoon", "good evening",
    "good night", "goodnight", "morning", "night", "sorry", "bye", "bye bye", "goodbye", "welcome", "cheers",
    "congrats", "congratulations",
)  # fmt: skip
#: :data:`GREETINGS` as one alternation, longest first, a space as one space (``bye bye`` before ``bye``)
GREETING_ALTERNATION = "|".join(g.replace(" ", "[ ]") for g in sorted(GREETINGS, key=len, reverse=True))
#: :data:`RELATION_NOUNS` as one alternation, longest first, with the ``great-``, ``grand-`` and
#: ``step-`` prefixes (``stepson``, ``grandmother``, ``great-grandfather``)
RELATION_ALTERNATION = (r"(?:great-?)?(?:grand-?|step-?)?(?:"
                        + "|".join(sorted(RELATION_NOUNS, key=len, reverse=True)) + ")")


#: the words that say the signs of an address said in words, and the sign each says (``maria dot
#: lopez at gmail dot com``; decision 0205): the regex detector reads them, the EMAIL and URL
#: surrogates write them back; the first word of a sign is the one written where none was said
ADDRESS_SIGN_WORDS: dict[str, str] = {
    "dot": ".", "period": ".", "underscore": "_", "dash": "-", "hyphen": "-", "at": "@",
}  # fmt: skip


#: the units of a length of time, singular, as one alternation (``10 days ago``, ``3-week``): the
#: date rules cut an amount of time off a DATE span (decision 0653) and the DATE surrogates keep a
#: length of time as written
TIME_UNIT_ALTERNATION = "minute|min|hour|hr|day|week|wk|month|mo|year|yr|decade"
#: words that place an event in time before a date written in two parts (``on 12/26``, ``since
#: 12/94``): the cue of the two-part date rule of ``regex`` (decision 0176) and of the check that
#: keeps ``on 8/10`` a date while ``Rating: 8/10`` is a score (``detectors.merge``, decision 0180)
DATE_CUE_ALTERNATION = "on|since|until|till|through|thru|from|by|before|after|due|dated|born"
#: verbs of saying: a capitalized NAME before one is kept by the verifier (decision 0138), and one
#: after a name in lower case leaves its span (decision 0213)
SPEECH_VERBS: tuple[str, ...] = ("said", "says", "asked", "asks", "told", "tells", "replied", "answered",
                                 "whispered", "shouted", "cried", "added", "explained", "wrote", "writes")

#: the words of a number said digit by digit, each at its digit's index, and ``oh`` for zero
#: (``five five five, two oh one``): the spoken-number rule of ``regex`` and the PHONE surrogate
#: that says its digits again (decision 0183)
DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: one digit word, ``oh`` too, in any case (what IGNORECASE matches: ``\u017fix`` is ``six``)
DIGIT_WORD_ALTERNATION = "|".join((*DIGIT_WORDS, "oh"))
#: one digit word as a word, in any case
DIGIT_WORD = re.compile(rf"\b(?:{DIGIT_WORD_ALTERNATION})\b", re.IGNORECASE)
_DIGIT_WORD_FORMS = tuple(re.compile(w, re.IGNORECASE) for w in (*DIGIT_WORDS, "oh"))


def digit_word_value(word: str) -> int:
    """The digit that ``word``, one digit word in any case, says (``Five`` -> 5, ``oh`` -> 0)."""
    for value, form in enumerate(_DIGIT_WORD_FORMS):
        if form.fullmatch(word):
            return value % 10
    raise ValueError("not a digit word")


def after_title(text: str, start: int) -> bool:
    """Whether ``text[start:]`` comes right after a title (``Dr. ``, ``Mrs ``, ``Sir ``)."""
    return _TITLE_BEFORE.search(text, max(0, start - 40), start) is not None


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the singular when ``n`` is 1, else in ``plural`` (default noun + "s");
    ``n`` with thousands separators, as every other count of the messages (``6,000 records, 3,682
    of them written by the interrupted run``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


#: holidays, lower case: a public anchor of the calendar, which a record's shifted dates must not
#: be read against (decision 0219: ``Christmas Day, 12/25/2023`` had told the record's offset),
#: and no person nor place (decision 0227: ``Christmas``, ``Mardi Gras``, the ``Eve`` of
#: ``Christmas Eve`` had been NAME spans)
HOLIDAYS = (
    "new year's day", "new year's eve", "valentine's day", "st. patrick's day", "st patrick's day",
    "saint patrick's day", "april fools' day", "april fool's day", "cinco de mayo", "juneteenth",
    "independence day", "bastille day", "canada day", "australia day", "anzac day", "halloween",
    "all saints' day", "guy fawkes night", "bonfire night", "veterans day", "veterans' day",
    "remembrance day", "armistice day", "christmas eve", "christmas day", "christmas", "xmas",
    "boxing day", "thanksgiving day", "thanksgiving", "easter sunday", "easter monday", "easter",
    "good friday", "ash wednesday", "mardi gras", "pentecost", "memorial day", "labor day",
    "labour day", "mother's day", "father's day", "martin luther king day", "mlk day",
    "presidents' day", "presidents day", "columbus day", "passover", "hanukkah", "chanukah",
    "ramadan", "diwali", "lunar new year", "chinese new year", "rosh hashanah", "yom kippur",
)  # fmt: skip
#: one holiday of :data:`HOLIDAYS`, any case, typographic apostrophes too, as a whole phrase
HOLIDAY = re.compile(
    r"(?<![\w'\u2019-])(?:"
    + "|".join(re.escape(h).replace("'", "['\u2019]").replace(r"\ ", r"[ \t]+").replace(r"\.", r"\.?")
               for h in sorted(HOLIDAYS, key=len, reverse=True))
    + r")(?![\w'\u2019-])", re.IGNORECASE)
#: the days of the week, lower case
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: a weekday's name, any case, in the singular or plural (``Friday``, ``MONDAYS``): no person
WEEKDAY_NAME = re.compile(rf"(?:{'|'.join(WEEKDAYS)})s?", re.IGNORECASE)
