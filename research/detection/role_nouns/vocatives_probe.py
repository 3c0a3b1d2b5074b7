"""0140, 0144 and 0151: role nouns and titles in direct address, in a hand-written dialogue probe (not
real text: it shows the case; the figures of the decisions come from real text).

    PYTHONPATH=src python research/detection/role_nouns/vocatives_probe.py
"""

from __future__ import annotations

from embedanon.detectors.registry import build_detectors

DETECTOR = build_detectors("model,regex")
TURNS = ["Thank you, doctor.", "Yes, doctor, I do.", "Okay doctor.", "Hi doctor, good to see you.",
         "Hello doctor!", "Thanks doc.", "Yes, sir.", "Hi nurse.", "Thank you, nurse.", "No, doctor, never.",
         "Morning, doctor.", "Bye doctor, thanks.", "Sure thing, boss.", "Yes ma'am.",
         "Alright, doctor. I will.",
         "Doctor, I have a question.", "Well doctor, it hurts.", "Thank you sir, bye.", "Yes miss.",
         "Okay professor, I see.", "Hello Doctor!",
         # 0151: informal titles and a greeting the decode took with the title
         "Thanks Doc.", "Bye Doctor!", "Thank you, Ma'am.", "See you, Doc!", "Okay Doctor.",
         "Thank you Doctor."]
for turn in TURNS:
    text = f"Doctor: How are you feeling today?\nPatient: {turn}\nDoctor: Good."
    print(turn, [(text[p.start : p.end], p.label, round(p.score, 2)) for p in DETECTOR.detect(text)])
