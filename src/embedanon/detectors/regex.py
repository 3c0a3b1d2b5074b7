"""``regex``: rule-based detection of formatted identifiers (no names, no addresses).

Labels and what counts (decisions the tests pin down with positive and negative tables):

* ``EMAIL``: ``local@domain.tld``; said in words too (decision 0205): ``maria dot lopez at gmail
  dot com``, ``kwame underscore mensah at yahoo dot co dot uk``, when the local part has a
  separator or a digit, reads as a name, or the domain is a mail provider's (not ``sale at
  Amazon dot com``).
* ``URL``: with a scheme (``https://``, ``ftp://``), starting ``www.``, or a bare domain whose last
  label is a common top-level domain (``linkedin.com/in/x``, ``bbc.co.uk``). Two-letter TLDs that
  are English words (``in``, ``is``, ``it``, ``me`` ...) are not accepted bare, so ``patient.In``
  is no URL. Trailing sentence punctuation is not part of the URL. Said in words after ``www``
  (``www dot maria photos dot com`` is not, ``www dot mariaphotos dot com`` is; 0205).
* ``PHONE``: ``+CC`` or ``00CC`` international numbers (8-15 digits); US ``(617) 555-0134`` /
  ``617-555-0134`` / ``617.555.0134``; national numbers with a trunk ``0`` and separators (UK
  ``020 7946 0958``, DE ``030 901820``, JP ``03-1234-5678``); FR ``01 42 68 53 00``; IN
  ``98765 43210``; BR ``(11) 91417-7776`` / ``11 9141-7776``; an extension (``x1234``,
  ``ext. 12``) is part of the number. A bare digit run is an ``ID``, not a phone. A number said
  digit by digit, 7 to 15 digit words (``five five five, two oh one, three three four four``), is
  a PHONE too, unless it counts up or down (``one two three four five six seven``).
* ``DATE``: ISO ``2024-03-15`` (optionally with a time), numeric ``12/31/2024``, ``31.12.2024``,
  ``3/4/24`` (two-digit years only with ``/`` or ``-``), month names with a day and/or year
  (``March 3, 2024``, ``3 March 2024``, ``Mar 3rd``, ``3rd of March``, ``March 2024``), and a
  month and day or a month and two-digit year after a word that places an event in time (``on
  12/26``, ``since 12/94``, ``until 8/71``; not ``before 9/11``, ``by 1/2 inch``). A bare
  year (``in 2019``), a bare month or weekday and clock times are **not** dates here: HIPAA Safe
  Harbor keeps years, and a month alone identifies no one.
* ``ID``: SSN-like ``123-45-6789``; the value after a record keyword (``MRN 123456``,
  ``Patient ID: AB-1234``, ``account no. 998877``); card-like groups ``4111 1111 1111 1111``;
  IBAN-like ``DE89 3704 0044 0532 0130 00``; digit runs of 6 or more not inside a decimal
  number (``1234567``, not ``3.14159265`` or ``1,000,000``); mixed letter-digit codes of 6+
  characters with at least 2 digits and either 5+ digits or 3+ letter/digit alternations
  (``A12B34C``, ``AB123456``; not ``COVID19``, ``H1N1``, ``MP3``).
* ``IP``: dotted IPv4 with octets <= 255 (not ``1.2.3.4.5``); IPv6 validated by :mod:`ipaddress`.
* ``AGE``: the number in ``54-year-old``, ``54 years old``, ``54 yo``, ``54 y/o``, ``age 54``,
  ``aged 54``, ``54 years of age``, ``57yrs of age``, ``40 yrs young``, ``at the age of 54``,
  ``turned 54`` / ``I'll turn 54``, ``when she was 54``, a speaker's own ``I'm 54``, ``im only
  14``, ``I am now 40`` (0-125), the number after a word for the person (``SINGLE MALE 45``,
  ``GUY, 47``, ``Man, 70,``; 13-99); not durations such as ``for 54 years``, nor ``turned 90
  degrees``, ``turn 3 pages``, ``when he was 5 minutes late``, ``I'm 100% sure``, ``I'm 5'11``,
  ``I'm 6 ft``, ``I am 3 episodes away``. Said in
  words too (1-125): ``fifty-six-year-old``, ``sixty two years old``, ``aged fifteen``, ``at the age
  of ten``, ``when I was twelve``, ``I'm thirteen`` (the words only; not ``I'm one of them``).

Spans overlapping inside this detector are merged by :func:`~.merge.merge_spans` (so an e-mail's
domain is not also a URL).

Scores say how sure the *label* is, not whether the text is PII: 1.0 where the format names the
label (an e-mail, a URL, an IP, a ``+CC`` or US phone, a date, an age, an SSN / card / IBAN shape,
the value after a record keyword, a number after a phone keyword: ``Mobile: 3076776298``,
``reached on 0547021176``), a bare card number (13-19 digits, issuer digit 3-6, Luhn sum),
:data:`GUESS` where the label is a guess from a shape that two labels
share: a bare digit run (an ``ID`` here, often a phone), a ``00`` run without separators, trunk-0
national groups (``01-8502335``, ``083-12-8348``). In a union with the model the merge prefers,
between spans of the same extent, the higher score, so the model's reading of the context decides
those labels, and a guess still covers the characters when the model misses them (hybrid scope
picks the surrogate by the label).
"""

from __future__ import annotations

import ipaddress
import re
import string
from collections.abc import Callable, Iterator
from typing import Final

from .._english import (
    ADDRESS_SIGN_WORDS,
    DATE_CUE_ALTERNATION,
    DIGIT_WORD,
    DIGIT_WORD_ALTERNATION,
    digit_word_value,
)
from ..lexicon import name_like
from .base import Span
from .merge import merge_spans
from .places import caseless_locations, landmarks, locations, organizations, streets

_TLDS: Final = (
    "com|org|net|edu|gov|mil|int|info|biz|io|co|ai|app|dev|ly|uk|de|fr|ca|au|jp|cn|ru|br|es|nl|se|ch|"
    "pl|eu|ie|nz|za|tv|us|xyz|online|site|tech|health|org\\.uk"
)
_URL_END: Final = ".,;:!?'\")]}>"

#: A local part has at most 64 characters (RFC 5321): each start of a long run of local-part
#: characters without an ``@`` (``a'a'a'…``: an apostrophe is no start boundary) then scans at most
#: 64 characters, not the rest of the run, so the search stays linear.
_EMAIL = re.compile(
    r"(?<![\w.%+-])\w(?:[\w.%+'-]{0,62}\w)?@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?![\w-])")
_URL_SCHEME = re.compile(r"(?<![\w@])(?:https?|ftp)://[^\s<>\"']+", re.IGNORECASE)
_URL_WWW = re.compile(r"(?<![\w@./])www\.[^\s<>\"']+", re.IGNORECASE)
_URL_BARE = re.compile(
    r"(?<![\w@./-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+(?:" + _TLDS + r")(?![\w-])"
    r"(?:/[^\s<>\"']*)?", re.IGNORECASE)

#: an e-mail or web address said in words (decision 0205): parts joined by ``dot``, ``underscore``,
#: ``dash`` ... (``maria dot lopez``), ``at`` (``at sign``), a domain and one or two top-level
#: domains said after ``dot`` (``gmail dot com``, ``nhs dot net``, ``yahoo dot co dot uk``)
_SAID_PART: Final = r"[A-Za-z0-9]+"
_SAID_JOIN: Final = r"[ \t]+(?:" + "|".join(w for w, c in ADDRESS_SIGN_WORDS.items() if c != "@") + r")[ \t]+"
_SAID_DOT: Final = r"[ \t]+(?:" + "|".join(w for w, c in ADDRESS_SIGN_WORDS.items() if c == ".") + r")[ \t]+"
#: (no top-level domain that is an English word: ``at some point in``, ``at that period in``)
_SAID_TLD: Final = r"(?:com|org|net|edu|gov|io|co|uk|ca|au|de|fr|ie|nz|za|ng|gh|ke|info|biz)"
#: words that are no local part (``email me at gmail dot com``, ``it is at nhs dot net``)
_NOT_LOCAL: Final = (r"me|us|him|her|them|it|you|i|is|was|are|be|email|e-mail|mail|address|account|one|"
                     r"that|this|there|here|or|and|just|simply|still|mine|my")
_SAID_EMAIL = re.compile(
    rf"(?<![\w@.-])(?!(?:{_NOT_LOCAL})\b)(?P<local>{_SAID_PART}(?:{_SAID_JOIN}{_SAID_PART}){{0,5}})"
    rf"[ \t]+at(?:[ \t]+(?:sign|symbol))?[ \t]+(?P<domain>{_SAID_PART})(?:{_SAID_JOIN}{_SAID_PART}){{0,4}}?"
    rf"{_SAID_DOT}{_SAID_TLD}(?:{_SAID_DOT}{_SAID_TLD})?(?![\w-])", re.IGNORECASE)
_SAID_URL = re.compile(
    rf"(?<![\w@.-])www{_SAID_DOT}{_SAID_PART}(?:{_SAID_JOIN}{_SAID_PART}){{0,4}}?{_SAID_DOT}{_SAID_TLD}"
    rf"(?:{_SAID_DOT}{_SAID_TLD})?(?![\w-])", re.IGNORECASE)
#: the domains of public mail providers, which make an address of any local part said before them
_MAIL_PROVIDERS: Final = frozenset({
    "gmail", "googlemail", "yahoo", "ymail", "hotmail", "outlook", "live", "msn", "aol", "icloud", "me",
    "mac", "protonmail", "proton", "gmx", "zoho", "yandex", "comcast", "verizon", "att", "sbcglobal",
    "btinternet", "mail"})


def _said_email(match: re.Match[str]) -> bool:
    """Whether an address said in words is an e-mail: its local part has a separator or a digit
    (``maria dot lopez``, ``jsmith 42``), reads as a name (``kwame``), or its domain is a mail
    provider's (``gmail``); not a common word at a company's site (``sale at Amazon dot com``)."""
    local = match.group("local")
    if not local.isalpha() or match.group("domain").lower() in _MAIL_PROVIDERS:
        return True
    return name_like(local)


_NO_BEFORE: Final = r"(?<![\w+.\-/])"
_NO_AFTER: Final = r"(?!\w|[.\-/]\d)"
#: An extension after a number: ``x1234``, `` ext. 12``, `` extension 5`` (part of the span).
_EXT: Final = r"(?:(?:x| ?ext\.? ?| extension )\d{1,5})?"
_PHONE_PATTERNS: Final = [
    # international: +CC or 00CC then 2-6 groups, (0) trunk allowed
    # (no match can hold a run of 34 digits or more, 3 + 6 x 5, nor end inside one: such a run is
    # refused at once instead of being re-split 5^6 ways)
    re.compile(_NO_BEFORE + r"(?:\+|\b00)(?!\d{34})\d{1,3}(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,5})){2,6}" + _EXT
               + _NO_AFTER),
    # US: (617) 555-0134, 617-555-0134, 617.555.0134, 1-617-555-0134, 617-555-0134x1234
    re.compile(_NO_BEFORE + r"(?:1[ .\-])?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .\-])\d{3}[ .\-]\d{4}" + _EXT
               + _NO_AFTER),
    # BR national: (11) 91417-7776, 11 9141-7776 (two-digit area code, 4-5 + 4 digits)
    re.compile(_NO_BEFORE + r"(?:\([1-9]\d\) ?|[1-9]\d )9?\d{4}-\d{4}" + _NO_AFTER),
    # FR: 01 42 68 53 00, 06.12.34.56.78
    re.compile(_NO_BEFORE + r"0[1-9](?:([ .\-])\d{2})(?:\1\d{2}){3}" + _NO_AFTER),
    # trunk-0 national numbers with space/hyphen/slash groups: UK, DE, JP
    re.compile(_NO_BEFORE + r"(?:\(0\d{1,4}\)|0\d{1,4})(?:[ \-/]\d{2,8}){1,3}" + _NO_AFTER),
    # IN: 98765 43210
    re.compile(_NO_BEFORE + r"0?[6-9]\d{4}[ \-]\d{5}" + _NO_AFTER),
]

_MONTH_NAMES: Final = ("january", "february", "march", "april", "may", "june", "july", "august",
                       "september", "october", "november", "december")


def _month_pattern() -> str:
    # Title or UPPER case always; lower case only for full names that are not English verbs, so
    # "patients 3 may develop" is no date. Abbreviations (Mar, SEPT.) only Title or UPPER.
    forms: set[str] = set()
    for full in _MONTH_NAMES:
        abbrevs = [full[:3]] + (["sept"] if full == "september" else [])
        for word in [full, *abbrevs]:
            forms.update({word.title(), word.upper()})
        if full not in ("may", "march"):
            forms.add(full)
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + r")\.?"


_MONTH: Final = _month_pattern()
_DAY: Final = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR: Final = r"(?:1[89]\d{2}|2[01]\d{2}|'\d{2})"
#: An optional clock time after a numeric date (``06/19/2023 05:37``, ``1.2.2024, 22:10:38``).
_CLOCK: Final = r"(?:,?[ T](?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?: ?[AaPp]\.?[Mm]\b\.?)?)?"

_ORDINAL_UNITS: Final = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORDINALS: Final = (*_ORDINAL_UNITS, "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                    "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth")
_NUMBER_WORDS: Final = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                        "eighteen", "nineteen")
_TENS: Final = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
#: a spoken day of the month: ``fourth``, ``twenty ninth``, ``twenty-first``, ``thirty first``
_SPOKEN_DAY: Final = (rf"(?:(?:twenty|thirty)[ \-](?:{'|'.join(_ORDINAL_UNITS)})|"
                      rf"{'|'.join(sorted(_ORDINALS, key=len, reverse=True))})")
_SPOKEN_TWO: Final = (rf"(?:(?:{'|'.join(_TENS)})(?:[ \-](?:{'|'.join(_NUMBER_WORDS[:9])}))?|"
                      rf"{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})")
#: a spoken year: ``two thousand (and) eight``, ``two thousand twenty three``, ``nineteen eighty
#: four``, ``twenty twenty``
_SPOKEN_YEAR: Final = (rf"(?:two thousand(?:(?: and)? {_SPOKEN_TWO})?|(?:nineteen|twenty)[ \-]"
                       rf"(?:hundred|oh[ \-](?:{'|'.join(_NUMBER_WORDS[:9])})|{_SPOKEN_TWO}))")

_DATE_PATTERNS: Final = [
    re.compile(r"(?<![\d\-])(?:1[89]|2[01])\d{2}([\-/])(?:0?[1-9]|1[0-2])\1(?:[12]\d|3[01]|0?[1-9])"
               r"(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?)?(?![\d\-])"),
    re.compile(r"(?<![\w.\-/])(\d{1,2})([/\-])(\d{1,2})\2(\d{4}|\d{2})" + _CLOCK + r"(?![\w\-/]|[.:]\d)"),
    re.compile(r"(?<![\w.\-/])(\d{1,2})(\.)(\d{1,2})\.(\d{4})" + _CLOCK + r"(?![\w\-/]|\.\d)"),
    re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"(?:,?\s+" + _YEAR + r")?(?![\w'])"),
    re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+" + _YEAR + r")?(?![\w'])"),
    re.compile(r"\b" + _MONTH + r",?\s+" + _YEAR + r"(?![\w'])"),
]
#: dates said in words (transcribed speech): ``July twenty ninth two thousand eight``, ``the
#: fourteenth of October``, ``November fourth``, ``May two thousand nine``; needs a month name, no digit
_SPOKEN_DATES: Final = [
    re.compile(rf"\b{_MONTH}\s+{_SPOKEN_DAY}(?:,?\s+{_SPOKEN_YEAR}|,?\s+{_YEAR})?(?![\w'\-])",
               re.IGNORECASE),
    re.compile(rf"\b{_SPOKEN_DAY}\s+of\s+{_MONTH}(?:,?\s+{_SPOKEN_YEAR}|,?\s+{_YEAR})?(?![\w'\-])",
               re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_SPOKEN_YEAR}(?![\w'\-])", re.IGNORECASE),
]
#: a month and year in digits: ``02/2008``, ``11-1999``
_MONTH_YEAR: Final = re.compile(r"(?<![\w.\-/])(?:0?[1-9]|1[0-2])[/\-](?:19|20)\d{2}(?![\w\-/]|[.:]\d)")
#: a date without its year, or with two digits of it, after a word that places an event in time:
#: ``on 12/26``, ``since 12/94``, ``until 8/71``, ``from 02/05``, ``by 3/93`` (decision 0176); the date
#: only; not ``9/11`` (the attacks), nor before ``%``, ``of``, ``'s`` or a unit (``by 1/2 inch``,
#: ``on 3/4 L``), nor a score in a range of scores (``from 3/10 to 6/10``)
_SHORT_DATE: Final = re.compile(
    rf"\b(?i:{DATE_CUE_ALTERNATION})\s+"
    r"(?!9/11\b)(?P<v>(?:0?[1-9]|1[0-2])/(?:\d{2}|[1-9]))"
    r"(?![\w/\-]|[.,:]\d|['’]s\b|\s*(?:%|(?i:of|inch|inches|cups?|tsp|tbsp|miles?|mg|ml|mm|cm|kg|lbs?|"
    r"pounds?|points?|x|l|liters?|litres?)\b|(?i:to|-)\s*\d{1,2}/10\b))")
#: a licence plate after its name: ``plate 7ABC123``, ``license plate number ABC-1234``
_PLATE: Final = re.compile(r"(?i:\b(?:licen[cs]e[ \t]+)?plates?(?:[ \t]+(?:number|no\.?|#))?"
                           r"(?:[ \t]+(?:is|was|reads))?)[ \t:#]+"
                           r"(?P<v>(?=[A-Z0-9\- ]*\d)(?=[A-Z0-9\- ]*[A-Z])[A-Z0-9]{2,4}[\- ]?[A-Z0-9]{2,5})"
                           r"(?![\w\-])")

_ID_KEYWORDS: Final = (
    r"MRN|MR\s*#|med(?:ical)?\s+record(?:\s+(?:no|number))?|patient\s+id|account(?:\s+(?:no|number))?|"
    r"acct|ID|policy(?:\s+(?:no|number))?|member\s+id|passport(?:\s+(?:no|number))?|licen[cs]e\s+(?:no|number)|"
    r"SSN|social\s+security(?:\s+number)?|case\s+(?:no|number)"
)
_ID_PATTERNS: Final = [
    re.compile(r"(?<![\w\-])\d{3}-\d{2}-\d{4}(?![\w\-])"),
    re.compile(r"\b(?i:" + _ID_KEYWORDS + r")\b\.?\s*+(?:#|(?i:no)\.?|(?i:number))?\s*+[:#]?\s*+"
               r"(?P<v>(?=[A-Za-z0-9\-]*\d)[A-Za-z0-9][A-Za-z0-9\-]{2,}[A-Za-z0-9])(?![\w\-])"),
    re.compile(r"(?<![\w\-])\d{4}([ \-])\d{4}\1\d{4}\1\d{1,7}(?![\w\-])"),
    re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![\w])"),
    re.compile(r"(?<![\w.,])\d{6,}(?![\w]|[.,]\d)"),
    re.compile(r"\b(?=[A-Za-z0-9]*[A-Za-z])(?=(?:[A-Za-z]*\d){2})[A-Za-z0-9]{6,}\b"),
]

_PHONE_KEYWORDS: Final = (
    r"phone|telephone|tel|mobile|cell(?:phone)?|fax|whats[Aa]pp|call(?:\s+(?:me|us|him|her|them))?(?:\s+(?:at|on))?|"
    r"reach(?:ed)?(?:\s+\w+){0,2}?\s+(?:at|on)"
)
#: A number after a phone keyword: one optional separator between digits (7-15 digits, checked).
#: Whitespace runs are possessive (here and in the ID keyword pattern): only the value can follow
#: them, which never starts with a space, so giving spaces back only retried the same split, cubic
#: in a run of padding after a keyword (``Fax`` + 2,000 spaces took 30 s).
_PHONE_AFTER_KEYWORD = re.compile(
    r"\b(?i:" + _PHONE_KEYWORDS + r")\b\.?\s*+(?:(?i:no|number|#)\.?)?\s*+[:#]?\s*+"
    r"(?P<v>\+?\d(?:[ .\-]?\d){6,14})" + _NO_AFTER)

#: A bare card number: 13-19 digits, checked by :func:`_card_number` (issuer digit and Luhn sum).
_CARD_DIGITS = re.compile(r"(?<![\w.,])[3-6][0-9]{12,18}(?![\w]|[.,]\d)")  # ASCII: Luhn reads ord()

_OCTET: Final = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(r"(?<![\w.])(?:" + _OCTET + r"\.){3}" + _OCTET + r"(?![\w]|\.\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")

_AGE_NUMBER: Final = r"(?P<v>1[01]\d|12[0-5]|[1-9]?\d)"
#: what after a number makes it no age (a unit, a share, a count, a clock time, a range), for the
#: rules that read an age after ``turned`` or ``when she was`` and after ``I'm`` (which adds more)
_NO_AGE_AFTER: Final = (r"%|°|percent|degrees?|times|points?|pages?|miles?|km|minutes?|hours?|days?|weeks?|"
                        r"months?|years?|am|pm|a\.m|p\.m|o'clock|of\b|to\b|or\b|-\d")
#: the measures after a number that make it no age either, for the rules that read a person's own
#: age (``I'm 6 ft``, ``a man 50 feet away``)
_MEASURES: Final = (r"ft\b|feet|foot|inch|cm\b|kg\b|kilos?\b|lbs?\b|pounds?|stone\b|dollars?|bucks?|grand\b|"
                    r"seconds?|secs?\b|mins?\b|hrs?\b")
#: the words for a person an age follows in a personal ad (decision 0203), one alternation: the
#: age pattern and its word-start entry in :data:`_WORD_STARTS` both read it
_PERSON_WORDS: Final = (r"male|female|man|woman|guy|lady|gent|gentleman|girl|boy|dad|mum|mom|widow|widower|"
                        r"divorcee|married|single|divorced|separated|s[wb][mf]|d[wb][mf]")
_AGE_PATTERNS: Final = [
    re.compile(r"(?<![\w.])" + _AGE_NUMBER +
               r"(?:[ \-]?(?:years?|yrs?|y)[ \-]?old|\s?(?:yo|y/o|y\.o\.)|\s*(?:years?|yrs?)\s+of\s+age|"
               r"[ \-]?(?:years?|yrs?)[ \-]young)(?![\w/])",
               re.IGNORECASE),
    re.compile(r"\b(?:age|aged)\s*:?\s*" + _AGE_NUMBER + r"(?![\w.]|\.\d)", re.IGNORECASE),
    # "at the age of 61", "I'll turn 23.", "just turned 60", "when he was 78" (not "turned 90 degrees")
    re.compile(r"\b(?:age\s+of|turn(?:s|ed|ing)?|(?:when|since)\s+(?:he|she|i|we|they|you)\s+"
               r"(?:was|were|turned))\s+" + _AGE_NUMBER + r"(?!\w|[.,:/]\d|\s*(?:" + _NO_AGE_AFTER + "))",
               re.IGNORECASE),
    # a speaker's own age (decision 0171): "I'm 23", "im only 14", "I am now 40" (not "I'm 5 minutes
    # late", "I'm 100% sure", "I'm 5'11", "I'm 6 ft", "I'm 2 for 2", "I am 3 episodes away")
    re.compile(r"\b(?:i['’]?m|i\s+am)(?:\s+(?:only|just|now|almost|nearly|about|barely))?\s+" + _AGE_NUMBER
               + r"(?!\w|[.,:/'’\"]\d|\s*(?:" + _NO_AGE_AFTER + "|" + _MEASURES + r"|for\b|episodes?))",
               re.IGNORECASE),
    # the age after a word for the person (decision 0203): "SINGLE MALE 45 seeks", "ASIAN GUY, 47
    # prof", "Conn. Man, 70, Oldest", "LADY 63." (13-99; not a range, "40s", "50 plus", "35+", a
    # unit or "years", nor a label's number: "MAN 2:", "Spider-Man 2")
    re.compile(rf"(?<![\w-])(?:{_PERSON_WORDS})"
               r"[ \t]*,?[ \t]+(?P<v>1[3-9]|[2-9]\d)(?![\w:]|[.,/'’\"]\d|\s*(?:" + _NO_AGE_AFTER + "|"
               + _MEASURES + r"|yrs?\b|and\s+(?:over|up|above|older|under|younger)\b|plus\b|ish\b|[+\-–]"
               r"|s\b))",
               re.IGNORECASE),
]

#: an age said in words, 1 to 125 (``fifty-six``, ``twenty two``, ``one hundred and two``)
_UNIT_WORDS: Final = "one|two|three|four|five|six|seven|eight|nine"
_TEEN_WORDS: Final = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TEN_WORDS: Final = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_AGE_IN_WORDS: Final = (
    rf"(?P<v>(?:one[\s-]+hundred(?:[\s-]+and)?[\s-]+)?(?:(?:{_TEN_WORDS})(?:[\s-]+(?:{_UNIT_WORDS}))?"
    rf"|{_TEEN_WORDS}|{_UNIT_WORDS})|one[\s-]+hundred)"
)
#: ages said in words (decision 0157): ``fifty-six-year-old``, ``sixty two years old``, ``nearly fifty
#: years of age``, ``aged fifteen``, ``at age seventy-four``, ``at the age of ten`` (not ``at the age
#: of seven days``)
_SPOKEN_AGE_PATTERNS: Final = [
    re.compile(r"(?<![\w-])" + _AGE_IN_WORDS
               + r"(?:[ \-]?(?:years?|yrs?)[ \-]?old|\s+(?:years?|yrs?)\s+of\s+age)(?![\w/])", re.IGNORECASE),
    re.compile(r"\b(?:aged?|age\s+of)\s*:?\s+" + _AGE_IN_WORDS
               + r"(?![\w-]|\s+(?:days?|weeks?|months?|hours?|minutes?)\b)", re.IGNORECASE),
    # after the cues of the digit rules (decision 0175): "when I was twelve", "since she was nine",
    # "I'm thirteen", "i am twenty one"; not "one" ("I'm one of those"), nor before a unit or
    # "years" ("three years older"; "seven years old" is the first rule's)
    re.compile(r"\b(?:(?:when|since)\s+(?:he|she|i|we|they|you)\s+(?:was|were)|i['’]?m|i\s+am)"
               r"(?:\s+(?:only|just|now|almost|nearly|about|barely))?\s+(?!one\b)" + _AGE_IN_WORDS
               + r"(?![\w-]|\s+(?:years?|yrs?|months?|weeks?|days?|hours?|minutes?|seconds?|times|of|"
               r"percent|feet|foot|inches|pounds|stone|steps?|points?|pages?|miles?)\b)", re.IGNORECASE),
]


def _strip_url(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1] in _URL_END:
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break  # a balanced parenthesis belongs to the URL (wikipedia-style paths)
        end -= 1
    return end


def _valid_numeric_date(match: re.Match[str]) -> bool:
    a, b = int(match.group(1)), int(match.group(3))
    return 1 <= a <= 31 and 1 <= b <= 31 and min(a, b) <= 12


def _valid_ipv6(match: re.Match[str]) -> bool:
    value = match.group(0)
    if not any(c.isalnum() for c in value):
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def _code_shape_ok(match: re.Match[str]) -> bool:
    value = match.group(0)
    digits = sum(c.isdigit() for c in value)
    alternations = sum(a.isdigit() != b.isdigit() for a, b in zip(value, value[1:], strict=False))
    return digits >= 5 or (alternations >= 3 and not any(c.islower() for c in value))


def _phone_digits_ok(match: re.Match[str]) -> bool:
    value = match.group("v") if "v" in match.re.groupindex else match.group(0)
    digits = sum(c.isdigit() for c in value)
    return 8 <= digits <= 15 if value[0] in "+0" else 7 <= digits <= 15


def _card_number(match: re.Match[str]) -> bool:
    """Luhn checksum (ISO/IEC 7812) of a digit run: a bare phone number passes one time in ten,
    a card number always; with the issuer digit (3-6) and 13-19 digits the label is no guess."""
    total = 0
    for i, ch in enumerate(reversed(match.group(0))):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


#: Score of a span whose label is a guess from a shape two labels share (see the module docstring).
GUESS: Final = 0.5


def _international_score(match: re.Match[str]) -> float:
    """``+CC ...`` names a phone; a ``00`` run without separators may as well be an ID."""
    return GUESS if match.group(0).isdigit() else 1.0


#: a number said digit by digit (decision 0183): 7 to 15 digit words (``oh`` for zero) joined by
#: spaces, a comma, a period or a hyphen (``five five five, two oh one, three three four four``)
_DIGIT_WORD: Final = rf"(?:{DIGIT_WORD_ALTERNATION})"
_DIGIT_JOIN: Final = r"(?:[ \t]*[,.][ \t]*|[ \t]+|-)"
_SPOKEN_NUMBER = re.compile(rf"(?<![\w'-]){_DIGIT_WORD}(?:{_DIGIT_JOIN}{_DIGIT_WORD}){{6,14}}(?![\w'-])",
                            re.IGNORECASE)


def _not_counting(match: re.Match[str]) -> bool:
    """Whether a number said digit by digit is no counting (``one two three four five six seven``,
    ``five, four, three, two, one``; a dance's ``one-two-three``): fewer than three quarters of
    its steps go up or down by one."""
    digits = [digit_word_value(w) for w in DIGIT_WORD.findall(match.group())]
    steps = [abs(b - a) == 1 for a, b in zip(digits, digits[1:], strict=False)]
    return sum(steps) < 0.75 * len(steps)


_Check = Callable[[re.Match[str]], bool]
_Score = Callable[[re.Match[str]], float]
#: What a text must contain for a rule to match at all (:func:`_present`): a digit, ``@``, ``:``,
#: a digit and a month name, or nothing. Checked once per text, so a rule that cannot match skips
#: its scan (most rules need a digit; about a quarter of real documents have none).
_DIGIT, _AT, _COLON, _MONTH_AND_DIGIT, _MONTH_WORD = "digit", "@", ":", "month", "month word"
#: what an age said in words needs: ``year`` or ``yr`` (``sixty two years old``), or ``age``
#: (``aged fifteen``), in any case
_YEAR_WORD, _AGE_WORD = "year word", "age word"
#: what a speaker's own age in words needs (decision 0175): ``was``, ``were``, ``am`` or ``m`` after
#: ``i`` and an apostrophe or none, as a word, in any case
_WAS_WORD = "was word"
#: what an address said in words needs (decision 0205): ``dot`` or ``period`` and a top-level
#: domain after it, in any case (read off the lower-cased text where it is ASCII)
_DOT_WORD = "dot word"
_ANY_DOT_WORD = re.compile(rf"{_SAID_DOT}{_SAID_TLD}(?![\w-])", re.IGNORECASE)
_ANY_DOT_WORD_LOWER = re.compile(rf"{_SAID_DOT}{_SAID_TLD}(?![\w-])")
#: what a date of two parts needs (decision 0176): a digit, ``/`` and a digit
_DIGIT_SLASH = "digit/digit"
_ANY_DIGIT_SLASH = re.compile(r"\d/\d")
_WAS_CUE = re.compile(r"\b(?:was|were|i['’]?m|am)\b", re.IGNORECASE)
#: Finer needs of the phone and ID rules, read off an ASCII text (:class:`_Present`; a text with
#: other characters meets them all): six digits with gaps of at most three of `` .-()`` (``/`` too
#: for the trunk-0 rule), three digits right after ``+`` or a leading ``00``, two capitals then
#: two digits, a word of letters and digits, an ID keyword, a plate keyword. Phone and ID rules
#: hold digits in most texts' numbers (doses, vitals) but match in few, and neutral formats (the
#: default) run them on every text.
_RUN, _RUN_SLASH, _PREFIX, _IBAN, _CODE, _ID_WORD, _PLATE_WORD = (
    "run", "run/", "+00", "iban", "code", "id-word", "plate-word")
#: (label, pattern, check or None, score or a function of the match, what the text must contain)
_RULES: Final[list[tuple[str, re.Pattern[str], _Check | None, float | _Score, str]]] = [
    ("EMAIL", _EMAIL, None, 1.0, _AT),
    ("EMAIL", _SAID_EMAIL, _said_email, 1.0, _DOT_WORD),
    ("URL", _SAID_URL, None, 1.0, _DOT_WORD),
    ("IP", _IPV4, None, 1.0, _DIGIT),
    ("IP", _IPV6, _valid_ipv6, 1.0, _COLON),
    ("PHONE", _PHONE_PATTERNS[0], _phone_digits_ok, _international_score, _PREFIX),
    *(("PHONE", p, _phone_digits_ok, 1.0, _RUN) for p in _PHONE_PATTERNS[1:4]),
    ("PHONE", _PHONE_PATTERNS[4], _phone_digits_ok, GUESS, _RUN_SLASH),  # trunk-0 groups: IDs look the same
    ("PHONE", _PHONE_PATTERNS[5], _phone_digits_ok, 1.0, _RUN),
    ("PHONE", _PHONE_AFTER_KEYWORD, _phone_digits_ok, 1.0, _RUN),
    ("PHONE", _SPOKEN_NUMBER, _not_counting, 1.0, ""),
    ("DATE", _DATE_PATTERNS[0], None, 1.0, _DIGIT),
    ("DATE", _DATE_PATTERNS[1], _valid_numeric_date, 1.0, _DIGIT),
    ("DATE", _DATE_PATTERNS[2], _valid_numeric_date, 1.0, _DIGIT),
    *(("DATE", p, None, 1.0, _MONTH_AND_DIGIT) for p in _DATE_PATTERNS[3:]),
    *(("DATE", p, None, 1.0, _MONTH_WORD) for p in _SPOKEN_DATES),
    ("DATE", _MONTH_YEAR, None, 1.0, _DIGIT),
    ("DATE", _SHORT_DATE, None, 1.0, _DIGIT_SLASH),
    ("ID", _PLATE, None, 1.0, _PLATE_WORD),
    ("ID", _ID_PATTERNS[0], None, 1.0, _RUN),
    ("ID", _ID_PATTERNS[1], None, 1.0, _ID_WORD),
    ("ID", _ID_PATTERNS[2], None, 1.0, _RUN),
    ("ID", _ID_PATTERNS[3], None, 1.0, _IBAN),
    ("ID", _ID_PATTERNS[4], None, GUESS, _RUN),  # a bare digit run: an ID or a phone
    ("ID", _CARD_DIGITS, _card_number, 1.0, _RUN),  # ... unless it is a card number
    ("ID", _ID_PATTERNS[5], _code_shape_ok, 1.0, _CODE),
    *(("AGE", p, None, 1.0, _DIGIT) for p in _AGE_PATTERNS),
    ("AGE", _SPOKEN_AGE_PATTERNS[0], None, 1.0, _YEAR_WORD),
    ("AGE", _SPOKEN_AGE_PATTERNS[1], None, 1.0, _AGE_WORD),
    ("AGE", _SPOKEN_AGE_PATTERNS[2], None, 1.0, _WAS_WORD),
]
_ANY_DIGIT = re.compile(r"\d")
_ANY_MONTH = re.compile(_MONTH)
_ANY_MONTH_WORD = re.compile(_MONTH, re.IGNORECASE)

#: Every form of a month name (full, abbreviated, ``Sept``) starts with the month's first three
#: letters, and every spoken day of the month with one of its own three-letter openings
#: (``fir``st, ``twe``nty, ``thi``rtieth): in an ASCII text an IGNORECASE match of such a rule can
#: only start where the lower-cased text has one at a word boundary.
_MONTH_OPENINGS: Final = tuple(sorted({m[:3] for m in _MONTH_NAMES}))
_SPOKEN_DAY_OPENINGS: Final = tuple(sorted({w[:3] for w in (*_ORDINALS, "twenty", "thirty")}))
#: a month's opening anywhere in a lower-cased ASCII text (the ``_MONTH_WORD`` need)
_MONTH_OPENING = re.compile("|".join(_MONTH_OPENINGS))
#: every place a month's opening starts, overlapping ones too (``janov``)
_MONTH_OPENING_AT = re.compile(rf"(?=(?:{'|'.join(_MONTH_OPENINGS)}))")
#: rule pattern -> where its matches can start in the lower-cased ASCII text (:func:`_finditer`)
_WORD_STARTS: Final[dict[re.Pattern[str], re.Pattern[str]]] = {
    _SPOKEN_DATES[0]: re.compile(rf"\b(?:{'|'.join(_MONTH_OPENINGS)})"),
    _SPOKEN_DATES[1]: re.compile(rf"\b(?:{'|'.join(_SPOKEN_DAY_OPENINGS)})"),
    _SPOKEN_DATES[2]: re.compile(rf"\b(?:{'|'.join(_MONTH_OPENINGS)})"),
    # an age said in words starts with a number word, or with ``age`` (``aged``, ``age of``)
    # (a number word that ``year`` or ``yr`` follows within the words of a number)
    _SPOKEN_AGE_PATTERNS[0]: re.compile(
        rf"(?<![\w-])(?:{_UNIT_WORDS}|{_TEEN_WORDS}|{_TEN_WORDS})(?=[a-z\s-]{{0,40}}?(?:year|yr))"),
    _SPOKEN_AGE_PATTERNS[1]: re.compile(r"\bage"),
    # ``when``, ``since``, ``i'm``, ``im``, ``i am`` (a typographic apostrophe is ``#`` here)
    _SPOKEN_AGE_PATTERNS[2]: re.compile(r"\b(?:when|since|i['#]?m\b|i\s+am\b)"),
    _AGE_PATTERNS[3]: re.compile(r"\bi(?:['#]?m\b|\s+am\b)"),
    # a number said digit by digit starts with a digit word that another follows
    _SPOKEN_NUMBER: re.compile(rf"(?<![\w'-]){_DIGIT_WORD}(?={_DIGIT_JOIN}{_DIGIT_WORD}(?![\w'-]))"),
    # an age after a word for the person starts with that word, a digit after it (decision 0203)
    _AGE_PATTERNS[4]: re.compile(rf"(?<![\w-])(?:{_PERSON_WORDS})(?=[ \t]*,?[ \t]+[1-9])"),
}


#: one ASCII letter, case-insensitively: which non-ASCII characters IGNORECASE takes for one
#: (the long s, the Kelvin sign, dotted and dotless i), asked of the regex engine itself
_ONE_ASCII_LETTER = re.compile("|".join(f"({letter})" for letter in string.ascii_lowercase), re.IGNORECASE)
_ONE_SPACE = re.compile(r"\s")
_ONE_WORD_CHARACTER = re.compile(r"\w")
_ASCII_LOWER: Final = {ord(c): c.lower() for c in string.ascii_uppercase}
#: non-ASCII character -> its stand-in in :func:`_starts_text` (filled as characters are met)
_STAND_INS: dict[str, str] = {}


def _stand_in(char: str) -> str:
    """The ASCII character that stands for the non-ASCII ``char`` in :func:`_starts_text`: the
    letter IGNORECASE matches it to, else a space for a space, ``_`` for another word character,
    ``#`` for the rest (no word character, no space, no hyphen)."""
    letter = _ONE_ASCII_LETTER.fullmatch(char)
    if letter is not None:
        return string.ascii_lowercase[letter.lastindex - 1]  # type: ignore[operator]
    if _ONE_SPACE.fullmatch(char):
        return " "
    return "_" if _ONE_WORD_CHARACTER.fullmatch(char) else "#"


def _starts_text(text: str) -> str:
    """``text`` as the word-start scans of :func:`_finditer` read it: the same length, ASCII
    letters in lower case, each non-ASCII character replaced by its :func:`_stand_in`.

    ``text.lower()`` for an ASCII text. Otherwise the stand-ins keep what the scans test: word
    characters stay word characters (``\\b``, ``(?<![\\w-])``), spaces stay spaces (``\\s`` in
    the rules and in the age scan's look-ahead), no other character becomes a hyphen or a letter,
    and a character IGNORECASE takes for an ASCII letter (``\u017feptember``) becomes that letter.
    Plain ``text.lower()`` can change the length (``\u0130``) and keeps the long s, so a long record
    with one such character anywhere was scanned at every position (decision 0164)."""
    if text.isascii():
        return text.lower()
    table = dict(_ASCII_LOWER)
    for char in set(text):
        if not char.isascii():
            if char not in _STAND_INS:
                _STAND_INS[char] = _stand_in(char)
            table[ord(char)] = _STAND_INS[char]
    return text.translate(table)


def _finditer(pattern: re.Pattern[str], text: str, lowered: str | None) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, tried only where a match can start when ``pattern`` has word
    starts (:data:`_WORD_STARTS`) and ``lowered`` is :func:`_starts_text` of ``text`` (None: every
    position is tried). The same matches: they never overlap, so
    the next one is the first that matches at a start at or after the last one's end; an IGNORECASE
    rule then scans a few word starts instead of every position (``\\b`` and a 50-way alternation
    at each character). ``pattern.finditer`` is the reference (``tests/detectors/test_regex.py``)."""
    starts = _WORD_STARTS.get(pattern)
    if starts is None or lowered is None:
        yield from pattern.finditer(text)
        return
    end = 0
    for start in starts.finditer(lowered):
        at = start.start()
        if at < end:
            continue
        match = pattern.match(text, at)
        if match is not None:
            yield match
            end = match.end()  # never empty: every such rule starts with a word


_DIGIT_RUN = re.compile(r"\d(?:[ .\-/()]{0,3}\d){5}")
_DIGIT_RUN_NO_SLASH = re.compile(r"\d(?:[ .\-()]{0,3}\d){5}")
_THREE_DIGITS = re.compile(r"\d(?:[ .\-()]{0,3}\d){2}")
#: what may not stand before the ``00`` of an international number (the rule's ``\b`` and
#: :data:`_NO_BEFORE`)
_NOT_BEFORE_00 = frozenset(string.ascii_letters + string.digits + "_+.-/")
#: ASCII bytes -> their shape: digits ``0``, capitals ``A``, small letters ``a``, ``_``; the rest a space
_SHAPE = bytes.maketrans(bytes(range(128)), bytes(
    48 if chr(i).isdigit() else 65 if chr(i).isupper() else 97 if chr(i).islower() else 95 if i == 95
    else 32 for i in range(128)))
#: the same with one letter class: digits ``0``, letters ``a``, ``_``, the rest a space
_WORD_SHAPE = _SHAPE.translate(bytes.maketrans(b"A", b"a"))
#: ASCII bytes -> letters in lower case, the rest a space (the words an ID keyword is made of)
_LETTERS = bytes.maketrans(bytes(range(128)), bytes(
    ord(chr(i).lower()) if chr(i).isalpha() else 32 for i in range(128)))


#: the ID keywords of one word, and those of two (in the letters of a text, :data:`_LETTERS`)
_ID_WORDS = re.compile(rb" (?:mrn|account|acct|id|policy|passport|ssn) ")
_ID_FIRST_WORDS = tuple(f" {w} ".encode() for w in ("record", "license", "licence", "case", "security"))
_ID_WORD_PAIRS = re.compile(rb" (?:med(?:ical)? +record|licen[cs]e +(?:no|number)|case +(?:no|number)|"
                            rb"social +security) ")


class _Present:
    """The needs of :data:`_RULES` that one text meets, each worked out on first use (a detector
    of some labels never asks for the others' needs); a superset of what can match, never less
    (``tests/detectors/test_regex.py`` compares with every rule run). The finer needs of the
    phone and ID rules are read off an ASCII text: each is implied by every match of its rules;
    a text that is not ASCII meets them all (``\\d``, ``\\w`` and case folding reach beyond ASCII)."""

    __slots__ = ("_text", "_known", "_ascii", "_shapes", "_lowered")

    def __init__(self, text: str) -> None:
        self._text = text
        self._known: dict[str, bool] = {"": True}
        self._ascii: bytes | None = None
        self._shapes: bytes | None = None
        self._lowered: str | None = None

    def lowered(self) -> str | None:
        """The text in lower case if it is ASCII, else None (computed once)."""
        if self._lowered is None and self._text.isascii():
            self._lowered = self._text.lower()
        return self._lowered

    def __contains__(self, need: object) -> bool:
        if not isinstance(need, str):
            return False
        known = self._known.get(need)
        if known is None:
            known = self._known[need] = self._meets(need)
        return known

    def _meets(self, need: str) -> bool:
        text = self._text
        if need == _AT:
            return "@" in text
        if need == _COLON:
            return ":" in text
        if need == _MONTH_WORD:  # in ASCII, IGNORECASE is the lower-cased text's
            lowered = self.lowered()
            if lowered is None:
                return _ANY_MONTH_WORD.search(text) is not None
            return _MONTH_OPENING.search(lowered) is not None
        if need == _DIGIT:
            return _ANY_DIGIT.search(text) is not None
        if need == _WAS_WORD:
            return _WAS_CUE.search(text) is not None
        if need == _DOT_WORD:
            lowered = self.lowered()
            if lowered is None:
                return _ANY_DOT_WORD.search(text) is not None
            return _ANY_DOT_WORD_LOWER.search(lowered) is not None
        if need == _DIGIT_SLASH:
            return _DIGIT in self and _ANY_DIGIT_SLASH.search(text) is not None
        if need in (_YEAR_WORD, _AGE_WORD):
            lowered = self.lowered()
            folded = text.lower() if lowered is None else lowered
            return "age" in folded if need == _AGE_WORD else "year" in folded or "yr" in folded
        if _DIGIT not in self:
            return False
        if need == _MONTH_AND_DIGIT:
            if _MONTH_WORD not in self:
                return False
            lowered = self.lowered()
            if lowered is None:
                return _ANY_MONTH.search(text) is not None
            # a case-sensitive month form starts where the lower-cased text has an opening
            return any(_ANY_MONTH.match(text, m.start()) is not None
                       for m in _MONTH_OPENING_AT.finditer(lowered))
        if not text.isascii():
            return True
        if need == _RUN_SLASH:  # 7+ digits of a phone, the runs of SSNs, cards and bare IDs
            return _DIGIT_RUN.search(text) is not None
        if need == _RUN:
            return _RUN_SLASH in self and _DIGIT_RUN_NO_SLASH.search(text) is not None
        if need == _PREFIX:
            return self._prefix()
        if need == _IBAN:
            return b"AA00" in self._shape()
        if need == _CODE:
            return self._code()
        if need == _ID_WORD:  # the keyword as words (spaces for whatever is not a letter)
            words = self._words()
            return (_ID_WORDS.search(words) is not None
                    or ("#" in text and b" mr " in words)
                    or (any(word in words for word in _ID_FIRST_WORDS)
                        and _ID_WORD_PAIRS.search(words) is not None))
        if need == _PLATE_WORD:
            words = self._words()
            return b" plate " in words or b" plates " in words
        raise KeyError(need)

    def _bytes(self) -> bytes:
        if self._ascii is None:
            self._ascii = self._text.encode("ascii")
        return self._ascii

    def _words(self) -> bytes:
        """The text's letters in lower case, a space for anything else, a space at each end."""
        return b" " + self._bytes().translate(_LETTERS) + b" "

    def _shape(self) -> bytes:
        if self._shapes is None:
            self._shapes = self._bytes().translate(_SHAPE)
        return self._shapes

    def _code(self) -> bool:
        """A whole word of 6+ letters and digits, 2+ of them digits, a letter among them: read
        around each letter next to a digit (a few per text: ``5mg``, ``T2``)."""
        shape = self._bytes().translate(_WORD_SHAPE)
        for pair in (b"a0", b"0a"):
            at = shape.find(pair)
            while at >= 0:
                start = shape.rfind(b" ", 0, at) + 1
                end = shape.find(b" ", at)
                end = len(shape) if end < 0 else end
                word = shape[start:end]
                if len(word) >= 6 and b"_" not in word and word.count(b"0") >= 2:
                    return True
                at = shape.find(pair, end)
        return False

    def _prefix(self) -> bool:
        """Three digits right after a ``+``, or after a ``00`` that starts a number."""
        text = self._text
        at = text.find("+")
        while at >= 0:
            if _THREE_DIGITS.match(text, at + 1):
                return True
            at = text.find("+", at + 1)
        at = text.find("00")
        while at >= 0:
            if (at == 0 or text[at - 1] not in _NOT_BEFORE_00) and _THREE_DIGITS.match(text, at + 2):
                return True
            at = text.find("00", at + 1)
        return False


def _present(text: str) -> _Present:
    """The needs of :data:`_RULES` that ``text`` meets (``need in _present(text)``)."""
    return _Present(text)


class RegexDetector:
    """Rule-based detector of e-mails, URLs, phones, dates, IDs, IP addresses and ages, and of
    places, institutions and street names by shape and public gazetteers (:mod:`.places`).

    Args:
        labels: restrict output to these labels (default: all the labels above); a string is a
            comma-separated list (``"PHONE,EMAIL"``: ``--detector-option regex_labels=PHONE,EMAIL``,
            the only form a detector option can take).
    """

    name = "regex"
    LABELS: Final = ("EMAIL", "URL", "PHONE", "DATE", "ID", "IP", "AGE", "LOCATION", "ORGANIZATION",
                     "ADDRESS")

    def __init__(self, *, labels: str | tuple[str, ...] | list[str] | None = None) -> None:
        from ..errors import ConfigError

        if isinstance(labels, str):  # a string was read letter by letter: ['P', 'H', 'O', 'N', 'E']
            labels = [label.strip() for label in labels.split(",")]
        chosen = tuple(self.LABELS if labels is None else labels)
        unknown = [x for x in chosen if x not in self.LABELS]
        if unknown or not chosen:
            raise ConfigError(f"regex labels must be among {', '.join(self.LABELS)}, got {list(chosen)!r}")
        self.labels = frozenset(chosen)

    def detect(self, text: str) -> list[Span]:
        """Spans of ``text`` matched by the rules, merged, sorted by start."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        spans: list[Span] = []
        present = _present(text)
        lowered = _starts_text(text)
        for label, pattern, check, score, needs in _RULES:
            if label not in self.labels or needs not in present:
                continue
            for match in _finditer(pattern, text, lowered):
                if check is not None and not check(match):
                    continue
                start, end = match.span("v") if "v" in pattern.groupindex else match.span()
                sure = score if isinstance(score, float) else score(match)
                spans.append(Span(start, end, label, sure, self.name))
        places = "LOCATION" in self.labels or "ORGANIZATION" in self.labels or "ADDRESS" in self.labels
        if "LOCATION" in self.labels and not text.isupper():
            spans.extend(caseless_locations(text))  # lines with no capital: the gazetteer alone (0178)
        if places and text.lower() != text != text.upper():
            orgs = organizations(text)  # capitals are the evidence: text with both cases only
            if "ORGANIZATION" in self.labels:
                spans.extend(orgs)
            roads = streets(text, orgs)
            if "ADDRESS" in self.labels:
                spans.extend(roads)
            if "LOCATION" in self.labels:
                sights = landmarks(text, [*orgs, *roads])
                spans.extend(sights)
                spans.extend(locations(text, [*orgs, *roads, *sights]))
        if "URL" in self.labels and "." in text:  # every URL rule needs a dot
            for pattern in (_URL_SCHEME, _URL_WWW, _URL_BARE):
                for match in pattern.finditer(text):
                    end = _strip_url(text, match.start(), match.end())
                    if end - match.start() > 4:
                        spans.append(Span(match.start(), end, "URL", 1.0, self.name))
        return merge_spans(spans)
