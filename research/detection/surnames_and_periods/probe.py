"""Decision 0188, a probe written by hand: the nine surnames with an apostrophe that the public
figure list holds as keys of two words (``o brien``, ``o casey``, ``o connor``, ``o flaherty``,
``o hara``, ``o keeffe``, ``o neill``, ``o toole``, ``o henry``), each in six lines of a clinical
note, a doctor-patient dialogue and a lesson chat. Found: the surname's characters are covered by
a NAME span of ``model,regex`` (at least half).

    PYTHONPATH=<src> python probe.py
"""

from __future__ import annotations

from embedanon.detectors.registry import build_detectors

SURNAMES = ("O'Brien", "O'Casey", "O'Connor", "O'Flaherty", "O'Hara", "O'Keeffe", "O'Neill", "O'Toole",
            "O'Henry")
LINES = (
    "Please ask {s} to call me back about the appointment.",
    "Doctor: Good morning, Mrs. {s}. What brings you in today?\nPatient: My back hurts.",
    "Patient was seen with her daughter, Ms. {s}, who provides most of the history.",
    "teacher: ok, that's all for today. Bye Mr {s}!\nstudent: bye",
    "Guest_family: I'm her son, Aidan {s}. She fell on Tuesday.",
    "Referred by Dr. {s} for evaluation of chest pain.",
)


def main() -> None:
    detector = build_detectors("model,regex")
    found = total = 0
    for surname in SURNAMES:
        for line in LINES:
            text = line.format(s=surname)
            a = text.index(surname)
            b = a + len(surname)
            covered = sum(max(0, min(b, s.end) - max(a, s.start)) for s in detector.detect(text)
                          if s.label == "NAME")
            found += 2 * covered >= b - a
            total += 1
    print(f"surnames found: {found}/{total}")


if __name__ == "__main__":
    main()
