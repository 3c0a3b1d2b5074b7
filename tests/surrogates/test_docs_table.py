"""The examples of the surrogate table in docs/surrogates.md are the code's output under the key
they name (five rows had gone stale after 0220 and 0223). ADDRESS, LOCATION and ORGANIZATION
examples are left out: they draw from the Faker installed at run time."""

from __future__ import annotations

import re
from pathlib import Path

from embedanon.config import SurrogateConfig
from embedanon.surrogates import Surrogates, prf_from_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "surrogates.md"
FAKER_DRAWN = {"ADDRESS", "LOCATION", "ORGANIZATION"}


def test_the_tables_examples_are_real_output() -> None:
    makers, prf = Surrogates(SurrogateConfig()), prf_from_key(b"readme")
    assert 'key `b"readme"`' in DOC.read_text(encoding="utf-8")
    checked = 0
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) < 3 or cells[0] in FAKER_DRAWN | {"label"}:
            continue
        for original, shown in re.findall(r"`([^`]+)` → `([^`]+)`", cells[-1]):
            assert makers.replace(cells[0], original, prf=prf, record_prf=prf) == shown, (cells[0], original)
            checked += 1
    assert checked >= 15
