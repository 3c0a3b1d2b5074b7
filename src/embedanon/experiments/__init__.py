"""Utility against privacy as a product: ``embedanon experiment run CONFIG.yaml``.

:mod:`.config` (the YAML schema), :mod:`.runner` (cells, resume), :mod:`.levers` (release levers
emulated on items), :mod:`.results` (summaries, tables, plots).
"""

from .config import DatasetSpec, ExperimentConfig, MechanismSpec, load_config, parse_config
from .results import COLUMNS
from .runner import run_experiment

__all__ = [
    "COLUMNS",
    "DatasetSpec",
    "ExperimentConfig",
    "MechanismSpec",
    "load_config",
    "parse_config",
    "run_experiment",
]
