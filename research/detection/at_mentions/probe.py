"""Decision 0197: a hand-written probe (not real text) of handles named with ``@`` in lesson-chat,
forum and message lines, each with the handle it names, and lines whose ``@`` names no account.

    PYTHONPATH=<src> python probe.py     (once with main's src, once with the change)
"""

from __future__ import annotations

from embedanon.detectors.registry import build_detectors

NAMED = [
    ("@jenny_b thanks for the notes from class!", "jenny_b"),
    ("thanks @Kwame_M, see you tomorrow", "Kwame_M"),
    ("can someone ping @maria.lopez99 about the essay", "maria.lopez99"),
    ("DM @anne_k if you need the slides", "anne_k"),
    ("@tomasz ur link is broken", "tomasz"),
    ("lol @Nguyen_Thi_Lan same", "Nguyen_Thi_Lan"),
    ("@oluwaseun.a did you submit?", "oluwaseun.a"),
    ("great point @xiomara_r!", "xiomara_r"),
    ("Replying to @priya_s: the deadline is Friday", "priya_s"),
    ("cc @DiegoH for the lab report", "DiegoH"),
    ("@amaka2008 wait for me", "amaka2008"),
    ("thx @wei.zhang", "wei.zhang"),
]
NOT_NAMED = [
    "mail me at anne@school.org",
    "meet @ 3pm in room 4",
    "what a bad @ss movie",
    "they f#@ked it up",
    "@everyone the quiz is open",
    "@all see the board",
]


if __name__ == "__main__":
    detector = build_detectors("model,regex")
    found = 0
    for text, name in NAMED:
        spans = [text[s.start:s.end] for s in detector.detect(text)]
        found += name in spans
        print("+" if name in spans else "-", text, spans)
    flagged = 0
    for text in NOT_NAMED:
        spans = [text[s.start:s.end] for s in detector.detect(text) if s.label == "NAME"]
        flagged += bool(spans)
        print("!" if spans else " ", text, spans)
    print(f"handles found exactly: {found}/{len(NAMED)}; "
          f"lines with no account given a NAME: {flagged}/{len(NOT_NAMED)}")
