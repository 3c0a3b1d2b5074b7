"""``run_attacks``: every attack on one configured release, as counts and rates (never text).

This is what ``privacy-report`` calls. The caller anonymizes the documents once per release
(``releases[0]`` is the release measured; more releases feed the multi-release attack) and
passes the mechanism and index the anonymizer was built on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...text import tokenize
from ..prior import (
    AttackerVocabulary,
    NameEntry,
    ProxyFn,
    domain_frequencies,
    embedding_vocabulary,
    name_dictionary,
    public_prior,
    text_frequencies,
)
from .bayes import PosteriorAttack, TopK, release_prior
from .confirmation import ConfirmationFigure, name_confirmation
from .contextual import (
    BigramModel,
    ContextualFigure,
    bundled_bigrams,
    contextual_attack,
    text_sentences,
    train_bigrams,
)
from .documents import Slot, corpus_slots
from .empirical import EMPIRICAL_SMOOTHING, attacker_law
from .likelihood import Likelihood
from .multirelease import ReleaseFigure, multi_release
from .oov import composed_proxies, extended_vocabulary, names_vocabulary
from .pooled import record_pooled_run

NameSpan = tuple[int, int, str]  # (start, end) character offsets in the original, culture group


@dataclass(frozen=True, slots=True)
class NameFigure:
    """The name-dictionary attack on name tokens of one culture group (or ``all``).

    Attributes:
        group: culture group.
        tokens: name word tokens (from the spans).
        marked: of them, marked by the capitalization cue (attacked).
        in_dictionary: of them, whose name is in the public dictionary.
        top1_hits, top10_hits: expected hits; unmarked tokens count as misses.
        mean_candidates: mean number of dictionary names with a positive score (marked tokens).
        verbatim: of ``tokens``, released unchanged outside the mechanism (scope ``detected``:
            a name the detectors missed), each a hit at top-1 and top-10: read, not guessed.
    """

    group: str
    tokens: int
    marked: int
    in_dictionary: int
    top1_hits: float
    top10_hits: float
    mean_candidates: float
    verbatim: int = 0

    def as_dict(self) -> dict[str, Any]:
        n = self.tokens or float("nan")
        return {"group": self.group, "tokens": self.tokens, "marked": self.marked,
                "in_dictionary": self.in_dictionary, "top1": self.top1_hits / n,
                "top10": self.top10_hits / n, "mean_candidates": self.mean_candidates,
                "verbatim": self.verbatim}


def with_verbatim_names(names: Sequence[NameFigure], groups: Sequence[str]) -> tuple[NameFigure, ...]:
    """``names`` with name tokens the release shows unchanged (one culture group per token) added
    to ``all`` and to their group, each recovered at top-1 and top-10: an attacker reads them."""
    if not groups:
        return tuple(names)
    by_group = {n.group: n for n in names}
    out = []
    for group in ["all", *sorted({*(n.group for n in names if n.group != "all"), *groups})]:
        v = len(groups) if group == "all" else sum(g == group for g in groups)
        n = by_group.get(group, NameFigure(group, 0, 0, 0, 0.0, 0.0, float("nan")))
        out.append(replace(n, tokens=n.tokens + v, top1_hits=n.top1_hits + v, top10_hits=n.top10_hits + v,
                           verbatim=n.verbatim + v))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PrivacyFigures:
    """All attack figures of one release: counts and rates only (JSON-serializable via :meth:`as_dict`).

    Attributes:
        mechanism: mechanism name.
        documents: documents attacked.
        word_tokens: aligned alphabetic word tokens.
        invocab_tokens: those whose original is an embedding word.
        exact: whether the likelihood inverts every pre-image (else figures are lower bounds).
        public_prior, uniform_prior, oracle_prior: in-vocabulary Bayes attack, top-1 and top-5.
        release_prior: the same with a prior fitted to the release itself by EM, starting from the
            public prior (:func:`~.bayes.release_prior`): what an attacker learns of the corpus's
            word frequencies from the released words alone.
        oov: out-of-vocabulary tokens attacked through proxies over the embedding's words plus the
            most frequent public words it lacks (top-1, top-5); ``oov_in_dictionary`` of them have
            their word in that vocabulary.
        record_pooled, release_record_pooled, oov_record_pooled: the in-embedding attack with the
            public and with the release-fitted prior (``None`` when there is none), and the
            out-of-vocabulary attack, each with every record's released words pooled
            (:func:`~.pooled.record_pooled_run`): a word repeated in a record releases independent
            draws, which the attacker reads together. ``domain_record_pooled`` and
            ``oov_domain_record_pooled``: the same over the domain prior and vocabulary (``None``
            without attacker text).
        contextual_domain: the contextual attacker with the domain prior and a bigram model counted
            on the attacker's text (``None`` without it, or without ``contextual``).
        contextual_oov_domain: the same decoding over the out-of-vocabulary domain vocabulary,
            scored on the out-of-vocabulary tokens: rare words read in their context (decision
            0230; ``None`` as ``contextual_domain``).
        domain_prior, oov_domain: the in-vocabulary and out-of-vocabulary attacks again with a
            domain prior: the public list mixed half and half with the word frequencies of text the
            attacker holds (:func:`~embedanon.privacy.prior.domain_frequencies`); the
            out-of-vocabulary vocabulary also takes every word of that text. ``None`` without it;
            ``oov_domain_in_dictionary`` tokens have their word in that vocabulary.
        names: the name-dictionary attack per culture group and ``all`` (needs name spans).
        name_cue_tokens: tokens the capitalization cue marks in the release.
        contextual: the contextual attacker (forward-backward; Viterbi beside it) against the
            context-free one.
        releases: recovery after N releases (Bayes and majority vote).
        name_confirmation: which of two names a record holds (:mod:`.confirmation`), over the
            name spans or, without them, the capitalization cue.
    """

    mechanism: str
    documents: int
    word_tokens: int
    invocab_tokens: int
    exact: bool
    public_prior: TopK
    uniform_prior: TopK
    oracle_prior: TopK
    oov: TopK
    oov_in_dictionary: int
    name_cue_tokens: int
    names: tuple[NameFigure, ...] = ()
    contextual: ContextualFigure | None = None
    releases: tuple[ReleaseFigure, ...] = field(default=())
    release_prior: TopK | None = None
    domain_prior: TopK | None = None
    oov_domain: TopK | None = None
    oov_domain_in_dictionary: int | None = None
    contextual_domain: ContextualFigure | None = None
    contextual_oov_domain: ContextualFigure | None = None
    record_pooled: TopK | None = None
    release_record_pooled: TopK | None = None
    oov_record_pooled: TopK | None = None
    domain_record_pooled: TopK | None = None
    oov_domain_record_pooled: TopK | None = None
    name_confirmation: ConfirmationFigure | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mechanism": self.mechanism, "documents": self.documents, "word_tokens": self.word_tokens,
            "invocab_tokens": self.invocab_tokens, "exact": self.exact,
            "public_prior": self.public_prior.as_dict(), "uniform_prior": self.uniform_prior.as_dict(),
            "oracle_prior": self.oracle_prior.as_dict(), "oov": self.oov.as_dict(),
            "release_prior": None if self.release_prior is None else self.release_prior.as_dict(),
            "oov_in_dictionary": self.oov_in_dictionary, "name_cue_tokens": self.name_cue_tokens,
            "names": [n.as_dict() for n in self.names],
            "contextual": None if self.contextual is None else self.contextual.as_dict(),
            "releases": [r.as_dict() for r in self.releases],
            "domain_prior": None if self.domain_prior is None else self.domain_prior.as_dict(),
            "oov_domain": None if self.oov_domain is None else self.oov_domain.as_dict(),
            "oov_domain_in_dictionary": self.oov_domain_in_dictionary,
            "contextual_domain": None if self.contextual_domain is None else self.contextual_domain.as_dict(),
            "contextual_oov_domain": (None if self.contextual_oov_domain is None
                                      else self.contextual_oov_domain.as_dict()),
            "name_confirmation": None if self.name_confirmation is None else self.name_confirmation.as_dict(),
        }
        for key in ("record_pooled", "release_record_pooled", "oov_record_pooled", "domain_record_pooled",
                    "oov_domain_record_pooled"):
            value = getattr(self, key)
            out[key] = None if value is None else value.as_dict()
        return out


def _in_span(slot: Slot, spans: Sequence[NameSpan]) -> int | None:
    """The index of the span ``slot`` starts in (None: none)."""
    for i, (start, end, _) in enumerate(spans):
        if start <= slot.start < end:
            return i
    return None


def _cue_names(docs: Sequence[Sequence[Sequence[Slot]]]) -> list[tuple[list[Slot], str]]:
    """Runs of adjacent released words the capitalization cue marks: an attacker's names."""
    out: list[tuple[list[Slot], str]] = []
    for doc in docs:
        for sentence in doc:
            run: list[Slot] = []
            for slot in [*sentence, None]:
                if slot is not None and slot.name_cue and slot.released_id >= 0:
                    run.append(slot)
                    continue
                if run:
                    out.append((run, "unknown"))
                run = []
    return out


def _name_figures(slots: list[tuple[Slot, str]], attack: PosteriorAttack) -> tuple[NameFigure, ...]:
    position = attack.vocabulary.position()
    groups = sorted({g for _, g in slots})
    out = []
    for group in ["all", *groups]:
        chosen = [s for s, g in slots if group in ("all", g)]
        marked = [s for s in chosen if s.name_cue and s.released_id >= 0]
        truths = [position.get(s.key, -1) for s in marked]
        result = attack.run(truths, np.array([s.released_id for s in marked], dtype=np.int64), (1, 10))
        out.append(NameFigure(group, len(chosen), len(marked), sum(s.key in position for s in chosen),
                              result.hits[0], result.hits[1], result.mean_candidates))
    return tuple(out)


def run_attacks(originals: Sequence[str], releases: Sequence[Sequence[str]], *, mechanism: Any, index: Any,
                name_spans: Sequence[Sequence[NameSpan]] | None = None,
                names: Sequence[NameEntry] | None = None,
                bigrams: BigramModel | None = None, proxies: ProxyFn | None = None,
                release_counts: Sequence[int] = (1, 2, 5), lattice: int = 10, oov_words: int = 20_000,
                contextual: bool = True, empirical_draws: int = 0,
                empirical_smoothing: float = EMPIRICAL_SMOOTHING,
                attacker_text: Sequence[str] | None = None, neighbors: int = 50,
                likelihood: Likelihood | None = None, decoys: int = 10, seed: int = 0) -> PrivacyFigures:
    """Run every attack on ``releases[0]`` (and the multi-release attack on all of them).

    Args:
        originals: the documents.
        releases: ``releases[r][d]``, release r of document d (full scope, token-aligned).
        mechanism: the mechanism the releases were made with (needs ``distribution``).
        index: its :class:`~embedanon.vectors.index.NeighborIndex`.
        name_spans: per document, ``(start, end, group)`` character spans of person names in the
            original (a detector's or a span file's); without them no name figures.
        names: the public name dictionary (default: the bundled Faker lists).
        bigrams: the contextual attacker's public model (default: the bundled one).
        proxies: ``keys -> proxy ids`` of words outside the embedding (default: the pipeline's rule).
        release_counts: N values of the multi-release attack.
        lattice: candidates per position of the contextual attacker.
        oov_words: public words outside the embedding added to the out-of-vocabulary attack.
        contextual: run the contextual attacker.
        empirical_draws: for a mechanism without an exact law (``laplace``, ``mahalanobis``),
            estimate its law from this many runs per candidate input
            (:class:`~.empirical.EmpiricalLaw`, pseudo-count :data:`EMPIRICAL_SMOOTHING`; figures
            are lower bounds); 0 (default): refuse such a mechanism (ConfigError).
        empirical_smoothing: the empirical law's pseudo-count per (input, candidate) pair.
        attacker_text: text of the corpus's kind the attacker holds (never the documents attacked,
            or the domain figures are an oracle's): adds the domain-prior attacks.
        neighbors: nearest words of a replacement considered as its pre-images (laws that are not
            inverted exactly).
        likelihood: the attacker's law, when the caller shares one with other attacks (default:
            :func:`~.empirical.attacker_law` of the arguments above).
        decoys: other names each name is played against in the confirmation game.
        seed: seed of the decoy draws (the caller derives it from its key).
    """
    if not releases:
        raise ValueError("need at least one release")
    store = index.store
    if likelihood is None:
        likelihood = attacker_law(mechanism, index, neighbors=neighbors, empirical_draws=empirical_draws,
                                  smoothing=empirical_smoothing)
    guarded = not getattr(mechanism, "may_return_input", False)
    if hasattr(likelihood, "prefetch"):  # every law once, for all releases and priors
        released = {store.id_of(t.text) for rel in releases for doc in rel for t in tokenize(doc)
                    if t.kind == "word" and t.text.isalpha()}
        likelihood.prefetch(np.array(sorted(released - {-1}), dtype=np.int64))
    docs = corpus_slots(originals, releases[0], store)
    flat = [s for doc in docs for sent in doc for s in sent if s.released_id >= 0]
    inv = [s for s in flat if s.original_id >= 0]
    xs = np.array([s.original_id for s in inv], dtype=np.int64)
    ys = np.array([s.released_id for s in inv], dtype=np.int64)

    def prior_attack(prior: np.ndarray) -> PosteriorAttack:
        return PosteriorAttack(likelihood, embedding_vocabulary(store, prior), store.words, guarded=guarded)

    public_weights = public_prior(store)
    public = prior_attack(public_weights)
    uniform = prior_attack(np.full(len(store), 1.0 / len(store)))
    oracle = prior_attack(np.bincount(xs, minlength=len(store)).astype(np.float64) if len(xs)
                          else np.ones(len(store)))
    results = [a.run(xs.tolist(), ys) for a in (public, uniform, oracle)]
    fitted = prior_attack(release_prior(uniform, ys, public_weights)) if len(ys) else None
    fitted_result = None if fitted is None else fitted.run(xs.tolist(), ys)

    proxies = composed_proxies(index) if proxies is None and store.pieces else proxies
    oov_slots = [s for s in flat if s.original_id < 0]
    oov_ys = np.array([s.released_id for s in oov_slots], dtype=np.int64)

    # each record's aligned words, all of them evidence for the record-pooled attacks (:mod:`.pooled`)
    doc_slots = [[s for sent in doc for s in sent if s.released_id >= 0] for doc in docs]
    doc_ys = [np.array([s.released_id for s in slots], dtype=np.int64) for slots in doc_slots]

    def pooled(attack: PosteriorAttack, position: dict[str, int] | None = None) -> TopK:
        """``attack`` with each record's released words pooled; the targets are the in-embedding
        words, or, given the vocabulary's ``position``, the out-of-vocabulary ones (-2: evidence)."""
        records = [(ys, np.array([(s.original_id if s.original_id >= 0 else -2) if position is None
                                  else (-2 if s.original_id >= 0 else position.get(s.key, -1))
                                  for s in slots], dtype=np.int64))
                   for slots, ys in zip(doc_slots, doc_ys, strict=True)]
        return record_pooled_run(attack, records)

    def oov_attack(vocab: AttackerVocabulary) -> tuple[TopK, int, TopK, PosteriorAttack, dict[str, int]]:
        """The out-of-vocabulary tokens attacked over ``vocab``, how many have their word in it,
        the same attack record-pooled (sharing its cached scores), the attack and ``vocab``'s
        positions."""
        position = vocab.position()
        truths = [position.get(s.key, -1) for s in oov_slots]
        attack = PosteriorAttack(likelihood, vocab, store.words, guarded=guarded)
        found = sum(t >= 0 for t in truths)
        return attack.run(truths, oov_ys), found, pooled(attack, position), attack, position

    oov, oov_in_dictionary, oov_pooled, _, _ = oov_attack(
        extended_vocabulary(store, proxies, extra_words=oov_words))
    public_pooled = pooled(public)
    fitted_pooled = None if fitted is None else pooled(fitted)

    domain = oov_domain = ctx_domain = ctx_oov_domain = domain_pooled = oov_domain_pooled = None
    oov_domain_in_dictionary = None
    if attacker_text is not None:
        own = text_frequencies(attacker_text)
        freqs = domain_frequencies(own)
        domain_attack = prior_attack(public_prior(store, freqs))
        domain = domain_attack.run(xs.tolist(), ys)
        domain_pooled = pooled(domain_attack)
        oov_domain, oov_domain_in_dictionary, oov_domain_pooled, oov_domain_attack, oov_rows = oov_attack(
            extended_vocabulary(store, proxies, extra_words=oov_words, frequencies=freqs, include=own))
        if contextual:  # the attacker's own text as the context model too, for rare words as well
            # its own name: the public contextual attacker below reads ``bigrams``, the public model
            # (0230 had reused the name, so with attacker text that figure read the attacker's bigrams)
            domain_bigrams = train_bigrams(text_sentences(attacker_text))
            ctx_domain = contextual_attack(docs, domain_attack, domain_bigrams, candidates=lattice)
            ctx_oov_domain = contextual_attack(
                docs, oov_domain_attack, domain_bigrams, candidates=lattice,
                targets=lambda s: -2 if s.original_id >= 0 else oov_rows.get(s.key, -1))

    name_figs: tuple[NameFigure, ...] = ()
    dictionary = name_dictionary() if names is None else names
    if name_spans is not None:
        if len(name_spans) != len(originals):
            raise ValueError(f"need name spans for each of the {len(originals)} documents")
        tagged = []
        spanned: dict[tuple[int, int], list[Slot]] = {}
        for d, (doc, spans) in enumerate(zip(docs, name_spans, strict=True)):
            for sent in doc:
                for s in sent:
                    at = _in_span(s, spans)
                    if at is not None:
                        tagged.append((s, spans[at][2]))
                        if s.released_id >= 0:
                            spanned.setdefault((d, at), []).append(s)
        vocab = names_vocabulary(dictionary, store, proxies)
        name_figs = _name_figures(tagged, PosteriorAttack(likelihood, vocab, store.words, guarded=guarded))
        played = [(slots, name_spans[d][at][2]) for (d, at), slots in spanned.items()]
        source = "spans"
    else:
        played, source = _cue_names(docs), "capitalization cue"
    confirmation = name_confirmation(played, likelihood, store, dictionary, proxies=proxies, guarded=guarded,
                                     decoys=decoys, seed=seed, source=source)

    ctx = None
    if contextual:
        ctx = contextual_attack(docs, public, bundled_bigrams() if bigrams is None else bigrams,
                                candidates=lattice)
    multi = tuple(multi_release(originals, releases, public, store, counts=release_counts))
    return PrivacyFigures(
        mechanism=str(getattr(mechanism, "name", "?")), documents=len(originals), word_tokens=len(flat),
        invocab_tokens=len(inv), exact=likelihood.exact, public_prior=results[0], uniform_prior=results[1],
        oracle_prior=results[2], oov=oov, oov_in_dictionary=oov_in_dictionary,
        name_cue_tokens=sum(s.name_cue for s in flat), names=name_figs, contextual=ctx, releases=multi,
        release_prior=fitted_result, domain_prior=domain, oov_domain=oov_domain,
        oov_domain_in_dictionary=oov_domain_in_dictionary, contextual_domain=ctx_domain,
        contextual_oov_domain=ctx_oov_domain,
        record_pooled=public_pooled, release_record_pooled=fitted_pooled, oov_record_pooled=oov_pooled,
        domain_record_pooled=domain_pooled,
        oov_domain_record_pooled=oov_domain_pooled, name_confirmation=confirmation,
    )
