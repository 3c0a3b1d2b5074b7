"""Engines that run chunks of records: in this process, in worker processes, or on Dask."""

from .base import BACKENDS, Backend, build_backend, chunk_texts

__all__ = ["BACKENDS", "Backend", "build_backend", "chunk_texts"]
