"""research/scripts/make_pii_set.py --blend-names (round 23): English word pieces, never a known name."""

from __future__ import annotations


def test_blend_names_are_english_pieces_never_a_known_name_or_common_word():
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import make_pii_set as gen

    blends = gen.BlendNames()
    rng = np.random.default_rng(3)
    drawn = [blends.sample(rng) for _ in range(300)]
    assert all(5 <= len(b) <= 11 and b.isalpha() and b == b.title() for b in drawn)
    assert not any(b.lower() in blends.forbidden or b.lower() in blends.common for b in drawn)
    assert "thembile" in blends.forbidden  # a held-out zu_ZA name can never be drawn
    assert len(set(drawn)) > 250


def _generator():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import make_pii_set as gen

    return gen


class _MarkedBlends:
    """Stands in for BlendNames: every blend is one marked word, so a test can find where blends went."""

    def sample(self, rng) -> str:  # noqa: ANN001
        rng.random()
        return "Blendmark"


def _names(gen, maker, *, slots: bool, seed: int) -> list[str]:
    pii = gen.Pii("train", seed, blend_names=1.0, blend_slots=slots)
    pii.blends = _MarkedBlends()
    doc = gen.Doc(str)
    if maker is gen._mention:
        maker(doc, pii)
    else:
        maker(doc, pii, ["The visit went well.", "She came back in May."])
    text = "".join(doc.parts)
    return [text[s["start"] : s["end"]] for s in doc.spans if s["label"] == "NAME"]


def test_blend_slots_put_blends_only_in_the_frame_never_in_running_text_mentions():
    gen = _generator()
    for seed in range(12):
        # a mention in running text: blends with --blend-names alone, never with --blend-slots
        assert any("Blendmark" in n for n in _names(gen, gen._mention, slots=False, seed=seed))
        assert not any("Blendmark" in n for n in _names(gen, gen._mention, slots=True, seed=seed))
        # a letter's greeting and sign-off are frame slots: at rate 1 every name there is a blend
        letter = _names(gen, gen.make_letter, slots=True, seed=seed)
        assert letter and all("Blendmark" in n for n in letter)


def test_blend_slots_need_a_rate_and_the_train_split():
    import pytest

    gen = _generator()
    with pytest.raises(SystemExit):
        gen.main(["--split", "train", "--seed", "1", "-o", "/dev/null", "--blend-slots"])
    with pytest.raises(SystemExit):
        gen.Pii("dev", 1, blend_slots=True)
