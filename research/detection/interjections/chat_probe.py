"""A hand-written lesson chat (no corpus text; decision 0142): which fillers and interjections
does ``model,regex`` flag, and is the one name still found?

    PYTHONPATH=src python research/detection/interjections/chat_probe.py
"""

from embedanon.detectors.registry import build_detectors

CHAT = """teacher: Hi there! How are you today?
student: Hi! I'm fine thanks, and you?
teacher: Good thanks. Haha, that's funny.
student: Hahaha yes
teacher: Ok, let's start with the exercise 3.
student: Hmm, I think the answer is b
teacher: Yes! Well done. Wow, great job
student: Lol thank you
teacher: Omg, I forgot. Let's look at page 12
student: Ahh ok. Yeah sure
teacher: Aha, so you went to Paris last summer?
student: yes with my sister Ana, it was amazing
teacher: Oops, sorry, typo. Hehe
student: Yay! Cool
teacher: Alright, see you on Monday. Bye bye!
student: Byee! Cheers
teacher: Ugh, my internet. Yikes
student: Hehehe ok. Whoa, it's late
teacher: Ahaha yes. Eww, Mondays. Yuck
student: lmao"""

if __name__ == "__main__":
    detector = build_detectors("model,regex", verify=True)
    for span in detector.detect(CHAT):
        print(repr(CHAT[span.start : span.end]), span.label, round(span.score, 2))
