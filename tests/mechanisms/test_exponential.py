"""The ``exponential`` mechanism (SanText): exact law against an independent reference, the
metric-DP inequality checked exactly, the sampler against the exact law, negative controls,
reproducibility, validation and memory.

Statistical tests run at fixed seeds, so they are deterministic. Each chi-square test rejects at
ALPHA = 1e-6: a correct sampler would fail one with probability 1e-6 at a random seed (about 1e-4
for all of them together, union bound), and each negative control comes with a power check.
"""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from embedanon.errors import ConfigError
from embedanon.mechanisms import Mechanism, available, build_mechanism
from embedanon.mechanisms.exponential import ExponentialMechanism
from embedanon.mechanisms.nearsets import inverse_norms, nearest_candidates
from embedanon.vectors import exact as exact_module
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore
from tests.conftest import make_store
from tests.helpers.noise import keyed_noise

ALPHA = 1e-6
N_PER_WORD = 10_000
DP_TOLERANCE = 1e-12  # relative, on P(y|x) <= exp(eps d) P(y|x')

Law = Callable[[int], np.ndarray]


# -- independent references ------------------------------------------------------------------------
def unit(vec: np.ndarray) -> list[float]:
    norm = math.sqrt(math.fsum(float(v) ** 2 for v in vec))
    return [float(v) / norm for v in vec]


def euclidean(store: EmbeddingStore, a: int, b: int) -> float:
    """||phi(a) - phi(b)|| from the coordinates of the rows normalised in float64 (the code works
    from inner products instead)."""
    pa, pb = unit(store.vectors[a]), unit(store.vectors[b])
    return math.sqrt(math.fsum((p - q) ** 2 for p, q in zip(pa, pb, strict=True)))


def reference_law(index: NeighborIndex, word_id: int, epsilon: float) -> np.ndarray:
    """SanText by the book: P(y|x) = exp(-eps d(x, y) / 2) / sum_y' exp(-eps d(x, y') / 2)."""
    weights = [math.exp(-epsilon * euclidean(index.store, word_id, y) / 2)
               for y in index.candidates.tolist()]
    total = math.fsum(weights)
    return np.array([w / total for w in weights])


def worst_dp_excess(index: NeighborIndex, law: Law, epsilon: float) -> float:
    """max over words x, x' and candidates y of log P(y|x) - log P(y|x') - eps d(x, x').

    <= log(1 + DP_TOLERANCE) means epsilon*d-privacy holds on this vocabulary (inf: some y is
    possible from x and impossible from x')."""
    words = range(len(index.store))
    laws = {x: law(x) for x in words}
    worst = -math.inf
    for x in words:
        for x2 in words:
            bound = epsilon * euclidean(index.store, x, x2)
            for p, q in zip(laws[x].tolist(), laws[x2].tolist(), strict=True):
                if p > 0:
                    worst = max(worst, math.inf if q == 0 else math.log(p) - math.log(q) - bound)
    return worst


# -- chi-square helpers ---------------------------------------------------------------------------
def cells_of(law: np.ndarray, n: int) -> list[np.ndarray]:
    """Chi-square cells: each candidate with expected count >= 5 alone, the others pooled (into
    the smallest single cell when the pool expects fewer than 5)."""
    order = np.argsort(-law, kind="stable")
    big = int((n * law[order] >= 5).sum())
    cells = [order[i:i + 1] for i in range(big)] + [order[big:]]
    if len(cells) > 1 and n * law[cells[-1]].sum() < 5:
        tail = cells.pop()
        cells[-1] = np.concatenate([cells[-1], tail])
    return cells


def pooled(values: np.ndarray, cells: list[np.ndarray]) -> np.ndarray:
    return np.array([values[c].sum() for c in cells], dtype=np.float64)


def chi_square_pvalues(index: NeighborIndex, sample: Callable[..., np.ndarray], law: Law,
                       words: list[int], n: int, seed: int) -> list[float]:
    """One call with n copies of each word; a goodness-of-fit p-value per word."""
    out = sample(np.repeat(np.array(words), n), keyed_noise(seed, n * len(words)))
    assert np.isin(out, index.candidates).all()
    positions = np.searchsorted(index.candidates, out)
    pvalues = []
    for i, x in enumerate(words):
        counts = np.bincount(positions[i * n:(i + 1) * n], minlength=index.n_candidates)
        cells = cells_of(law(x), n)
        result = stats.chisquare(pooled(counts, cells), n * pooled(law(x), cells))
        pvalues.append(float(result.pvalue))
    return pvalues


def chi_square_power(right: np.ndarray, wrong: np.ndarray, n: int) -> float:
    """Power at ALPHA of the test against ``right`` when the n draws follow ``wrong``: noncentral
    chi-square, noncentrality n * sum over cells of (wrong - right)^2 / right."""
    cells = cells_of(right, n)
    r, w = pooled(right, cells), pooled(wrong, cells)
    df = len(cells) - 1
    return float(stats.ncx2.sf(stats.chi2.isf(ALPHA, df), df, n * ((w - r) ** 2 / r).sum()))


def medium_index(n_words: int = 600, dim: int = 16, seed: int = 5) -> NeighborIndex:
    """Clustered synthetic vectors (so that neighborhoods matter), more candidates than the
    exact-scoring limit, so the float32 prefilter path runs."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(20, dim))
    vecs = centers[rng.integers(0, 20, n_words)] + 0.5 * rng.normal(size=(n_words, dim))
    words = [f"w{chr(97 + i // 676)}{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}" for i in range(n_words)]
    store = EmbeddingStore("medium", words, vecs.astype(np.float32))
    return NeighborIndex(store, CandidatePolicy(min_length=1), use_disk_cache=False)


# -- exact law --------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0, 10.0, 40.0])
def test_distribution_matches_reference(tiny_index: NeighborIndex, epsilon: float) -> None:
    mech = ExponentialMechanism(index=tiny_index, epsilon=epsilon)
    for x in range(len(tiny_index.store)):
        law = mech.distribution(x)
        assert law.shape == (tiny_index.n_candidates,) and law.dtype == np.float64
        np.testing.assert_allclose(law, reference_law(tiny_index, x, epsilon), rtol=1e-6, atol=1e-15)


def test_distribution_covers_candidates_only(tiny_store: EmbeddingStore) -> None:
    """echo and golf (4 letters) are not candidates: they may be inputs, never outputs."""
    index = NeighborIndex(tiny_store, CandidatePolicy(min_length=5), use_disk_cache=False)
    mech = ExponentialMechanism(index=index, epsilon=2.0)
    assert index.n_candidates == 6
    for x in range(8):
        np.testing.assert_allclose(mech.distribution(x), reference_law(index, x, 2.0), rtol=1e-6)
    out = mech.sample(np.repeat(np.arange(8), 200), keyed_noise(0, len(np.repeat(np.arange(8), 200))))
    assert set(out.tolist()) <= set(index.candidates.tolist())


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0, 10.0])
def test_metric_dp_inequality_holds_exactly(tiny_store: EmbeddingStore, epsilon: float) -> None:
    """P(y|x) <= exp(eps d(x, x')) P(y|x') for all 8 x 8 inputs and every candidate, with
    non-candidate inputs too (min_length=5 leaves 6 candidates)."""
    for policy in (CandidatePolicy(min_length=1), CandidatePolicy(min_length=5)):
        index = NeighborIndex(tiny_store, policy, use_disk_cache=False)
        mech = ExponentialMechanism(index=index, epsilon=epsilon)
        assert worst_dp_excess(index, mech.distribution, epsilon) <= math.log1p(DP_TOLERANCE)


@pytest.mark.parametrize("epsilon", [1.0, 3.0])
def test_wrong_mechanisms_fail_the_inequality(tiny_index: NeighborIndex, epsilon: float) -> None:
    """Negative controls: exp(-eps d) without the 1/2 (i.e. the 2 eps mechanism) and the law
    renormalised over the 3 nearest candidates only (SanText+-like truncation) break eps*d-DP."""
    double = ExponentialMechanism(index=tiny_index, epsilon=2 * epsilon)
    assert worst_dp_excess(tiny_index, double.distribution, epsilon) > 0.05

    right = ExponentialMechanism(index=tiny_index, epsilon=epsilon)

    def top3(x: int) -> np.ndarray:
        law = right.distribution(x)
        law[np.argsort(-law)[3:]] = 0.0
        return law / law.sum()

    assert worst_dp_excess(tiny_index, top3, epsilon) == math.inf


# -- sampler against the exact law -------------------------------------------------------------------
@pytest.mark.parametrize(("epsilon", "near_size", "seed"), [
    (1.0, None, 1),  # automatic rule: k = 0, uniform proposals only
    (4.0, 1, 2),     # one near candidate, most draws through the far branch
    (4.0, 3, 3),
    (10.0, 2, 4),
    (10.0, 64, 5),   # every candidate near: inverse CDF only
])
def test_sampler_fits_exact_law(tiny_index: NeighborIndex, epsilon: float,
                                near_size: int | None, seed: int) -> None:
    """10,000 draws per word, chi-square against distribution(), each at ALPHA = 1e-6."""
    mech = ExponentialMechanism(index=tiny_index, epsilon=epsilon)
    mech.near_size = near_size
    pvalues = chi_square_pvalues(tiny_index, mech.sample, mech.distribution, list(range(8)),
                                 N_PER_WORD, seed)
    assert min(pvalues) > ALPHA


@pytest.mark.parametrize("near_size", [1, 3])
def test_sampler_with_wrong_epsilon_fails_chi_square(tiny_index: NeighborIndex,
                                                     near_size: int) -> None:
    """Negative control: draws of the 2 eps mechanism tested against the eps law. Power at
    ALPHA for 10,000 draws is checked first (noncentral chi-square), so failing is no luck."""
    right = ExponentialMechanism(index=tiny_index, epsilon=2.0)
    wrong = ExponentialMechanism(index=tiny_index, epsilon=4.0)
    wrong.near_size = near_size
    for x in range(8):
        assert chi_square_power(right.distribution(x), wrong.distribution(x), N_PER_WORD) > 0.999
    pvalues = chi_square_pvalues(tiny_index, wrong.sample, right.distribution, list(range(8)),
                                 N_PER_WORD, seed=6)
    assert max(pvalues) < ALPHA


def test_sampler_fits_exact_law_on_medium_vocabulary() -> None:
    """600 clustered words: the float32 prefilter and the far branch both matter. 20,000 draws
    for each of 4 words, binned chi-square (cells with expected count >= 5) at ALPHA."""
    index = medium_index()
    mech = ExponentialMechanism(index=index, epsilon=8.0)
    mech.near_size = 8
    pvalues = chi_square_pvalues(index, mech.sample, mech.distribution, [0, 1, 2, 3], 20_000, 7)
    assert min(pvalues) > ALPHA


# -- the clever parts against brute force -----------------------------------------------------------
@pytest.mark.parametrize("k", [1, 8, 40])
@pytest.mark.parametrize("prefilter", [3, 0.01])  # 0.01: tau too high, every row falls back
def test_nearest_candidates_matches_brute_force(monkeypatch: pytest.MonkeyPatch, k: int,
                                                prefilter: float) -> None:
    monkeypatch.setattr(exact_module, "_PREFILTER_FACTOR", prefilter)
    index = medium_index()
    inv_norm = inverse_norms(index.store.vectors)
    pos, sims = nearest_candidates(index, np.arange(100), k, inv_norm)
    unit_vecs = index.store.vectors.astype(np.float64) * inv_norm[:, None]
    brute = unit_vecs[:100] @ unit_vecs[index.candidates].T
    for i in range(100):
        order = np.lexsort((np.arange(index.n_candidates), -brute[i]))[:k]
        assert pos[i].tolist() == order.tolist()
        np.testing.assert_allclose(sims[i], brute[i, order], rtol=0, atol=1e-12)


def test_nearest_candidates_with_duplicate_vectors() -> None:
    """Exact ties (30 copies of one vector) go to the lower candidate position."""
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(400, 8))
    vecs[100:130] = vecs[7]
    words = [f"w{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}{chr(97 + i // 676)}" for i in range(400)]
    index = NeighborIndex(EmbeddingStore("dup", words, vecs.astype(np.float32)),
                          CandidatePolicy(min_length=1), use_disk_cache=False)
    inv_norm = inverse_norms(index.store.vectors)
    pos, _ = nearest_candidates(index, np.array([7]), 20, inv_norm)
    assert pos[0].tolist() == [7, *range(100, 119)]


# -- reproducibility and the cache --------------------------------------------------------------------
def test_same_seed_same_output_and_seeds_differ(tiny_index: NeighborIndex) -> None:
    mech = ExponentialMechanism(index=tiny_index, epsilon=4.0)
    ids = np.tile(np.arange(8), 50)
    a = mech.sample(ids, keyed_noise(11, len(ids)))
    assert np.array_equal(a, mech.sample(ids, keyed_noise(11, len(ids))))
    assert not np.array_equal(a, mech.sample(ids, keyed_noise(12, len(ids))))


@pytest.mark.parametrize("epsilon", [1.0, 8.0])
def test_output_does_not_depend_on_cache_state(epsilon: float) -> None:
    """Same document and seed: a fresh mechanism, one that has seen other text first, and one
    whose cache holds 3 types (so it is emptied on every call) give the same words."""
    index = medium_index()
    doc = np.random.default_rng(0).integers(0, 600, 500)
    other = np.random.default_rng(1).integers(0, 600, 2000)
    fresh = ExponentialMechanism(index=index, epsilon=epsilon)
    warm = ExponentialMechanism(index=index, epsilon=epsilon)
    warm.sample(other, keyed_noise(2, len(other)))
    tiny_cache = ExponentialMechanism(index=index, epsilon=epsilon)
    tiny_cache.cache_bytes = 3 * (64 * 16 + 24)
    tiny_cache.sample(other, keyed_noise(2, len(other)))
    outputs = [m.sample(doc, keyed_noise(3, len(doc))) for m in (fresh, warm, tiny_cache)]
    assert np.array_equal(outputs[0], outputs[1])
    assert np.array_equal(outputs[0], outputs[2])


def test_empty_input_and_bad_ids(tiny_index: NeighborIndex) -> None:
    mech = ExponentialMechanism(index=tiny_index, epsilon=1.0)
    out = mech.sample(np.array([], dtype=np.int64), keyed_noise(0, len(np.array([], dtype=np.int64))))
    assert out.shape == (0,) and out.dtype == np.int64
    for bad in (-1, 8):
        with pytest.raises(IndexError, match="word ids"):
            mech.sample(np.array([0, bad]), keyed_noise(0, len(np.array([0, bad]))))
    with pytest.raises(IndexError, match="word ids"):
        mech.distribution(8)


# -- validation and registry --------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0, -1, -0.5, float("nan"), float("inf"), -float("inf")])
def test_invalid_epsilon_values(tiny_index: NeighborIndex, epsilon: float) -> None:
    with pytest.raises(ConfigError, match="epsilon must be a finite number > 0"):
        ExponentialMechanism(index=tiny_index, epsilon=epsilon)


@pytest.mark.parametrize("epsilon", [True, "1", None, [1.0]])
def test_invalid_epsilon_types(tiny_index: NeighborIndex, epsilon: object) -> None:
    with pytest.raises(TypeError, match="epsilon"):
        ExponentialMechanism(index=tiny_index, epsilon=epsilon)  # type: ignore[arg-type]


def test_registry(tiny_index: NeighborIndex) -> None:
    assert "exponential" in available()
    assert available()["exponential"].params == ("epsilon",)
    mech = build_mechanism("exponential", tiny_index, epsilon=1.0)
    assert isinstance(mech, ExponentialMechanism) and isinstance(mech, Mechanism)
    assert mech.name == "exponential" and mech.may_return_input
    with pytest.raises(ConfigError, match="does not take 'gamma'"):
        build_mechanism("exponential", tiny_index, epsilon=1.0, gamma=0.5)


def test_may_return_input(tiny_index: NeighborIndex) -> None:
    mech = ExponentialMechanism(index=tiny_index, epsilon=20.0)
    out = mech.sample(np.arange(8), keyed_noise(0, len(np.arange(8))))
    assert (out == np.arange(8)).sum() >= 1  # P(self) > 0.99 at eps 20 on this vocabulary


# -- memory ---------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["exponential", "tem"])
@pytest.mark.parametrize("streaming", [False, True], ids=["near-table", "streaming"])
def test_memory_stays_far_below_v_by_v(monkeypatch: pytest.MonkeyPatch, mechanism: str,
                                       streaming: bool) -> None:
    """12,000 words x 16 d, 1,500 tokens at epsilon 10 (near-set path; tem with gamma 1). A V x V
    float32 matrix would be 576 MB; the traced numpy peak (faiss is not used here) must stay under
    64 MB. With the precomputed near table of all words (V x 64 int32 positions + float64
    similarities = 9 MB) and, streaming (table disabled), with types scored in blocks of 128 x V
    float32 (6 MB) as they come."""
    from embedanon.mechanisms import nearsets
    from embedanon.mechanisms.tem import TemMechanism

    if streaming:
        monkeypatch.setattr(nearsets, "_NEAR_TABLE_MAX_BYTES", 0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [a + b + c for a in letters for b in letters for c in letters][:12_000]
    store = make_store(words, dim=16, seed=3)
    index = NeighborIndex(store, CandidatePolicy(min_length=1), use_disk_cache=False)
    mech = (ExponentialMechanism(index=index, epsilon=10.0) if mechanism == "exponential"
            else TemMechanism(index=index, epsilon=10.0, gamma=1.0))
    assert mech.resolved_near_size() > 0
    ids = np.random.default_rng(0).integers(0, len(words), 1_500)
    tracemalloc.start()
    try:
        out = mech.sample(ids, keyed_noise(1, len(ids)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.isin(out, index.candidates).all()
    assert peak < 64 * 2**20
    assert (nearsets.near_table(index, mech.resolved_near_size(), mech.inv_norm) is None) == streaming


# -- the real default embedding --------------------------------------------------------------------------
@pytest.mark.default_embedding
def test_default_embedding_sampler_fits_exact_law(default_index: NeighborIndex) -> None:
    """epsilon 12 on 21.7k candidates: 20,000 draws of 'movie' and 'good', binned chi-square."""
    mech = ExponentialMechanism(index=default_index, epsilon=12.0)
    words = [default_index.store.id_of("movie"), default_index.store.id_of("good")]
    pvalues = chi_square_pvalues(default_index, mech.sample, mech.distribution, words, 20_000, 8)
    assert min(pvalues) > ALPHA
