"""Decision 0114 (rejected): street, landmark and well-known-city shape rules, measured as spans added
to the shipped detector's output on dev, dev2 and the false-positive benchmark (never test).

    python research/detection/location_shapes/measure.py street|land|wk

Spans are added after the verifier (it never judged them), so the recall side is optimistic.
Overlap P / R are over the records that have gold spans.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "evaluation"))
import score as S  # noqa: E402

from embedanon.detectors import places  # noqa: E402
from embedanon.detectors.base import Span  # noqa: E402
from embedanon.detectors.evaluate import Counts, GoldSpan, score_document  # noqa: E402
from embedanon.lexicon import place_names  # noqa: E402

SUFFIX = r"(?:Street|St\.|Avenue|Ave\.?|Road|Rd\.|Boulevard|Blvd\.?|Lane|Drive|Parkway|Terrace|Highway)"
STREET = re.compile(rf"(?<![\w])(?:\d+[ \t]+)?(?:\d+(?:st|nd|rd|th)|[A-Z][a-z]+(?:[ \t][A-Z][a-z]+)?)[ \t]+"
                    rf"{SUFFIX}(?!\w)")
LANDMARK = re.compile(r"(?<![\w])((?:[A-Z][a-z]+[ \t]+){1,3}(?:Park|Square|Building|Bridge|Station|Island|"
                      r"Heights|Beach|Plaza|Mall|Tower|Towers|Side|Harbor|Harbour))(?![\w])")
AFTER_LOCATIVE = re.compile(r"(?:^|[^\w])(?:in|from|near|to|at|outside|around|visiting|into)[ \t]+"
                            r"((?:[A-Z][a-z]+|[A-Z]{2})(?:[ \t][A-Z][a-z]+)?)(?![\w])")


def added(text: str, variant: str) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    if variant == "street":
        out += [(m.start(), m.end(), "ADDRESS") for m in STREET.finditer(text)]
    if variant == "land":
        for m in LANDMARK.finditer(text):
            a, b = m.span(1)
            words = text[a:b].split()
            while len(words) > 1 and words[0].lower() in places._ORG_OPENERS | places._LEADING:
                a = text.index(words[1], a + len(words[0]))
                words = words[1:]
            if len(words) >= 2:
                out.append((a, b, "LOCATION"))
    if variant == "wk":
        out += [(m.start(1), m.end(1), "LOCATION") for m in AFTER_LOCATIVE.finditer(text)
                if m.group(1).lower() in place_names() or m.group(1) in ("New York", "LA", "NYC")]
    return out


def main() -> None:
    variant = sys.argv[1]
    detector = S.build("model,regex")
    for split in ("dev", "dev2", "fp_benchmark"):
        base, new, right, wrong = Counts(), Counts(), 0, []
        for rec in S.read(S.HERE / "realtext" / f"{split}.jsonl"):
            text = rec["text"]
            preds = list(detector.detect(text))
            gold = [GoldSpan(s["start"], s["end"], s["label"], s.get("group")) for s in rec.get("spans", [])]
            extra = [e for e in added(text, variant)
                     if not any(p.start < e[1] and e[0] < p.end for p in preds)]
            mask = bytearray(len(text))
            for g in gold:
                mask[g.start:g.end] = b"\x01" * (g.end - g.start)
            for a, b, _ in extra:
                if 2 * mask.count(1, a, b) >= b - a:
                    right += 1
                else:
                    wrong.append(text[a:b])
            if gold:
                base += score_document(text, gold, preds)[0]
                more = sorted(preds + [Span(a, b, lab, 1.0, "regex") for a, b, lab in extra],
                              key=lambda s: s.start)
                new += score_document(text, gold, more)[0]
        if split == "fp_benchmark":
            print(f"{split}: {right + len(wrong)} spans added: {wrong}")
        else:
            print(f"{split}: P {base.precision:.3f} R {base.recall:.3f} -> P {new.precision:.3f} "
                  f"R {new.recall:.3f}; added {right} right, {len(wrong)} wrong: {wrong}")


if __name__ == "__main__":
    main()
