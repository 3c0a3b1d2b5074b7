"""Decision 0236: spans before and after the detectors read HTML character references decoded,
on the real texts outside the test half that hold one.

    PYTHONPATH=<src before> python research/detection/html_entities/measure.py before.json
    PYTHONPATH=src python research/detection/html_entities/measure.py after.json
    python research/detection/html_entities/measure.py --compare before.json after.json
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from before_after import main_on_matching  # noqa: E402

ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")

if __name__ == "__main__":
    main_on_matching(ENTITY, noun="all")
