"""scripts/make_pii_set.py --blend-names (round 23): English word pieces, never a known name."""

from __future__ import annotations


def test_blend_names_are_english_pieces_never_a_known_name_or_common_word():
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import make_pii_set as gen

    blends = gen.BlendNames()
    rng = np.random.default_rng(3)
    drawn = [blends.sample(rng) for _ in range(300)]
    assert all(5 <= len(b) <= 11 and b.isalpha() and b == b.title() for b in drawn)
    assert not any(b.lower() in blends.forbidden or b.lower() in blends.common for b in drawn)
    assert "thembile" in blends.forbidden  # a held-out zu_ZA name can never be drawn
    assert len(set(drawn)) > 250
