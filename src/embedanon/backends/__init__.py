"""Engines that run chunks of records: in this process, in worker processes, or on Dask."""

from .base import BACKENDS, Backend, Task, build_backend, chunk_texts, run_task

__all__ = ["BACKENDS", "Backend", "Task", "build_backend", "chunk_texts", "run_task"]
