"""Exceptions raised by embedanon.

Every error the library raises on purpose derives from :class:`EmbedanonError`, so the CLI can
catch exactly these, print one line and exit with status 2, while real bugs keep their traceback.
"""

from __future__ import annotations


class EmbedanonError(Exception):
    """Base class of the project's own errors."""


class ConfigError(EmbedanonError, ValueError):
    """A parameter has a wrong value (``epsilon must be a finite number > 0, got -1.0``)."""


class ParameterTypeError(EmbedanonError, TypeError):
    """A parameter given from outside has a wrong type (``--detector-option llm_verify=maybe``
    reaches the detector as a string): a :class:`TypeError` that the CLI reports in one line."""


class InputError(EmbedanonError):
    """The data to anonymize cannot be read or parsed (missing file, bad UTF-8, bad JSON line)."""


class EmbeddingError(EmbedanonError):
    """An embedding cannot be found, read or imported."""
