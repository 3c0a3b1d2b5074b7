"""The pipeline: plan tokens, replace word parts and codes, return the document with its items.

    record -> text.split_words -> plan (Lexicon) -> replace (mechanism, fallback, guard, codes)
           -> AnonymizedDocument(text, items)
"""

from .anonymizer import Anonymizer, resolve_key
from .document import (
    AnonymizedDocument,
    Task,
    anonymize_document,
    anonymize_documents,
    anonymize_records,
    anonymize_text,
    record_identity,
    run_task,
)
from .replace import Item
from .runtime import Runtime, get_runtime

__all__ = ["AnonymizedDocument", "Anonymizer", "Item", "Runtime", "Task", "anonymize_document",
           "anonymize_documents", "anonymize_records", "anonymize_text", "get_runtime",
           "record_identity", "resolve_key", "run_task"]
