"""Surrogate makers by label: the built-in name table and the registry that loads it.

A maker factory takes the :class:`~.config.SurrogateConfig` and returns a
:class:`~.base.Maker` for one label. The table lists each built-in by module path, so no maker
module imports this registry; a module is imported on the first lookup of one of its labels.
"""

from __future__ import annotations

from collections.abc import Callable

from .._registry import Registry
from .base import Maker

#: The built-in makers: label (lower case) -> factory ``(config) -> Maker`` (``package.module:attribute``).
BUILTIN_MAKERS: dict[str, str] = {
    "name": "embedanon.surrogates.names:NameMaker",
    "date": "embedanon.surrogates.dates:DateMaker",
    "phone": "embedanon.surrogates.shape:PhoneMaker",
    "id": "embedanon.surrogates.shape:IdMaker",
    "ip": "embedanon.surrogates.shape:IpMaker",
    "email": "embedanon.surrogates.fakes:EmailMaker",
    "url": "embedanon.surrogates.fakes:UrlMaker",
    "address": "embedanon.surrogates.fakes:AddressMaker",
    "age": "embedanon.surrogates.fakes:AgeMaker",
    "location": "embedanon.surrogates.locations:LocationMaker",
    "organization": "embedanon.surrogates.organizations:OrganizationMaker",
}

#: label (lower case) -> factory ``(config) -> Maker``.
MAKERS: Registry[Callable[..., Maker]] = Registry("surrogate", BUILTIN_MAKERS)

__all__ = ["BUILTIN_MAKERS", "MAKERS"]
