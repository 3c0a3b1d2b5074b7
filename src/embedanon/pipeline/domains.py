"""Top-level domains of e-mail addresses and URLs: drawn from a public list, not by the mechanism.

A top-level domain given to the mechanism comes back as an embedding neighbor of itself
(``com`` -> ``org``, ``net`` -> ``com``), and an attacker who knows the tool inverts it with a short
list of common domains (issue 9 measured 76-80 % on hidden data). So the last label of the host of
every e-mail address and URL the ``regex`` detector finds is replaced by a label drawn uniformly
from :data:`PUBLIC_TLDS` (the candidates among them) minus the original one, with the keyed noise
of the ``DOMAIN`` stage at the word part's position. The draw does not depend on the original
except for the excluded value, so the release says only "not this one"; no mechanism guarantee is
claimed for it (nor needed: the label is public and the draw ignores the input's neighbors).

Only the candidates among :data:`PUBLIC_TLDS` are drawn (with the default embedding ``biz`` and
``edu`` are not words of it, so they are never released, while an original ``edu`` is replaced
like any other). Texts without ``@``, ``://``, ``www.`` or a ``.tld`` pattern are not searched
(two prefilters: about 2 % of the pipeline's time on IMDB reviews).
"""

from __future__ import annotations

import re
from typing import Final

from ..detectors.regex import _TLDS, RegexDetector

#: Generic and common country-code top-level domains (IANA root zone), the public draw.
PUBLIC_TLDS: Final = ("com", "org", "net", "edu", "gov", "info", "biz", "io", "co", "us", "uk", "de",
                      "fr", "ca", "au", "nl", "eu")
#: Cheap first test (a dot directly before a letter is rare in prose), then the TLD pattern.
_QUICK: Final = re.compile(r"@|://|www\.|\.[A-Za-z]")
_PREFILTER: Final = re.compile(r"@|://|www\.|\.(?:" + _TLDS + r")\b", re.IGNORECASE)
_DETECTOR: Final = RegexDetector(labels=("EMAIL", "URL"))
_HOST_END: Final = re.compile(r"[/?#:\s]")


def tld_starts(text: str) -> list[int]:
    """Start offsets of the top-level-domain labels of the e-mail and URL hosts in ``text``.

    Returns:
        Ascending offsets, one per host whose last label is a run of ASCII letters.
    """
    if not (_QUICK.search(text) and _PREFILTER.search(text)):
        return []
    out = []
    for span in _DETECTOR.detect(text):
        value = text[span.start : span.end]
        if span.label == "EMAIL":
            at = value.rfind("@") + 1
            host = value[at:]
        else:
            scheme = value.find("://")
            at = scheme + 3 if scheme >= 0 else 0
            rest = value[at:]
            stop = _HOST_END.search(rest)
            host = rest[: stop.start()] if stop else rest
        dot = host.rfind(".")
        label = host[dot + 1 :]
        if dot > 0 and label.isascii() and label.isalpha():
            out.append(span.start + at + dot + 1)
    return sorted(set(out))
