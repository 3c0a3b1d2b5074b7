"""embedanon: release free text without the people in it.

Every word is replaced by a word sampled near it in a public word-embedding space (Abdalla et al.
2020), optionally under metric differential privacy.

    >>> from embedanon import Anonymizer
    >>> anon = Anonymizer(seed=7)            # default: minilm-words embedding, knn, k=10
    >>> anon.anonymize("John Smith, 54, was seen for chest pain.")  # doctest: +SKIP
"""

from __future__ import annotations

from .config import AnonymizerConfig
from .errors import ConfigError, EmbedanonError, EmbeddingError, InputError
from .mechanisms import Mechanism, build_mechanism, register
from .mechanisms import available as available_mechanisms
from .noise import ReleaseKey
from .pipeline import AnonymizedDocument, Anonymizer, anonymize_document, anonymize_text
from .text import Token, detokenize, tokenize
from .vectors.defaults import DEFAULT_EMBEDDING, import_embedding, load_embedding
from .vectors.index import NeighborIndex
from .vectors.store import CandidatePolicy, EmbeddingStore

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_EMBEDDING",
    "AnonymizedDocument",
    "Anonymizer",
    "AnonymizerConfig",
    "CandidatePolicy",
    "ConfigError",
    "EmbeddingError",
    "EmbeddingStore",
    "EmbedanonError",
    "InputError",
    "Mechanism",
    "NeighborIndex",
    "ReleaseKey",
    "Token",
    "__version__",
    "anonymize_document",
    "anonymize_text",
    "available_mechanisms",
    "build_mechanism",
    "detokenize",
    "import_embedding",
    "load_embedding",
    "register",
    "tokenize",
]
