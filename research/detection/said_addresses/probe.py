"""Decision 0205: e-mail and web addresses said in words, as a transcriber writes them in a
dialogue. No real corpus here holds one (NLTK webtext, Brown, MTSamples, IMDB, AG News, PubMed:
none among about 90,000 texts), so this probe is written by hand: 8 turns, each filled with two
people of each of four culture groups (64 lines). It prints the addresses found (predicted spans
covering at least half of the address, which runs from the first name part to the last top-level
domain) and the name parts that come back verbatim in a detected-scope release, for the code on
``PYTHONPATH``.

    PYTHONPATH=src python research/detection/said_addresses/probe.py
"""

from __future__ import annotations

import re

from embedanon import Anonymizer
from embedanon.detectors.registry import build_detectors

NAMES = {
    "african": [("kwame", "mensah"), ("chinedu", "okafor")],
    "american-european": [("emily", "carter"), ("lukas", "becker")],
    "hispanic": [("maria", "lopez"), ("javier", "ortega")],
    "south-southeast-asian": [("priya", "raman"), ("nguyen", "thanh")],
}
TURNS = [
    "Patient: My email is {g} dot {s} at gmail dot com.",
    "Patient: Sure, it's {g} underscore {s} at yahoo dot co dot uk, all lower case.",
    "Doctor: We'll send the results to {s} at hotmail dot com, is that right?",
    "Patient: You can reach my daughter at {g} {s} 82 at outlook dot com.",
    "Guest_family: Write it down: {g} dot {s} at sign aol dot com.",
    "Patient: My work address is {g} dot {s} at stmarys dot org.",
    "Patient: The blog is www dot {g}{s} dot com if you want to see the photos.",
    "Doctor: And the portal login was {g} dash {s} at icloud dot com, okay.",
]
_LAST_TLD = re.compile(r".* dot (?:com|org|uk)\b")


def main() -> None:
    detector = build_detectors("model,regex")
    anonymizer = Anonymizer(scope="detected", detectors="model,regex")
    found = total = verbatim = parts = 0
    for people in NAMES.values():
        for given, surname in people:
            for turn in TURNS:
                text = turn.format(g=given, s=surname)
                start = min(i for i in (text.find(given), text.find(surname)) if i >= 0)
                if text[start - 8 : start] == "www dot ":
                    start -= 8
                end = _LAST_TLD.match(text).end()  # type: ignore[union-attr]
                covered = sum(min(end, s.end) - max(start, s.start) for s in detector.detect(text)
                              if s.start < end and start < s.end)
                total += 1
                found += int(2 * covered >= end - start)
                released = anonymizer.anonymize_document(text).text
                for part in (given, surname):
                    if part in text:
                        parts += 1
                        verbatim += int(re.search(rf"(?<![a-z]){part}(?![a-z])", released) is not None
                                        or (part == given and f"{given}{surname}" in released))
    print(f"addresses found: {found}/{total}; name parts verbatim in the detected-scope release: "
          f"{verbatim}/{parts}")


if __name__ == "__main__":
    main()
