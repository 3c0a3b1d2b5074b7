"""Build src/embedanon/vectors/data/minilm-words-public.npz: placements of public English words
outside the default embedding (see embedanon.vectors.placements).

The words are the most frequent alphabetic ASCII English words of wordfreq (`pip install
'embedanon[build]'`; public data, MIT/CC-BY-SA sources) that are not words of minilm-words. Run
once after the default embedding changes:

    .venv/bin/python scripts/build_public_placements.py [--words 150000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from embedanon.config import AnonymizerConfig
from embedanon.pipeline.plan import SAFE_K
from embedanon.pipeline.runtime import get_runtime
from embedanon.text import lookup_key
from embedanon.vectors.placements import TABLE_FILE, fingerprint

OUT = Path(__file__).resolve().parents[1] / "src" / "embedanon" / "vectors" / "data" / TABLE_FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=150_000, help="public words to place")
    args = ap.parse_args()
    import wordfreq

    rt = get_runtime(AnonymizerConfig())
    store = rt.store
    words: list[str] = []
    seen: set[str] = set()
    for w in wordfreq.top_n_list("en", 1_000_000):
        key = lookup_key(w)
        if len(key) >= 2 and key.isascii() and key.isalpha() and store.id_of(key) < 0 and key not in seen:
            seen.add(key)
            words.append(key)
            if len(words) == args.words:
                break
    composer = rt.lexicon.composer
    assert composer is not None
    t0 = time.time()
    placed, rows = composer.neighbors(words, SAFE_K)
    kept = [w for w, ok in zip(words, placed.tolist(), strict=True) if ok]
    table = rows[placed]
    assert table.max() < 1 << 15
    np.savez_compressed(OUT, words=np.frombuffer("\n".join(kept).encode(), dtype=np.uint8),
                        rows=table.astype(np.int16),
                        fingerprint=np.array(fingerprint(rt.index, SAFE_K)))
    print(f"placed {len(kept)} of {len(words)} public words in {time.time() - t0:.0f} s -> {OUT} "
          f"({OUT.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
