"""The optional transformer detector on a tiny randomly initialised BERT (vocabulary built here).

Everything that needs torch/transformers is skipped when they are missing (CI's dev extra does not
install them: ``pip install -e ".[train]"`` does). The lazy-import contract is tested always.
"""

from __future__ import annotations

import importlib.util
import string
import subprocess
import sys

import numpy as np
import pytest

from embedanon.detectors import Span, build_detectors
from embedanon.detectors.bio import CLASSES
from embedanon.detectors.transformer import (
    IGNORE,
    TransformerDetector,
    encode,
    piece_labels,
    require_transformers,
    train_transformer,
    windows,
)
from embedanon.errors import ConfigError

HAVE = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
needs_torch = pytest.mark.skipif(not HAVE, reason="torch/transformers not installed (pip install 'embedanon[train]')")

TEMPLATES = ["hello {n}, how are you?", "my name is {n}.", "{n}: see you tomorrow", "thanks {n}!",
             "please call {n} today", "the report was sent by {n} yesterday"]
FILLER = ["the weather is nice today.", "see you tomorrow at the clinic.", "how are you?",
          "please call the office today.", "the report was sent yesterday."]
TEMPLATE_WORDS = sorted({w for t in TEMPLATES + FILLER for w in t.replace("{n}", "").replace(",", " , ")
                         .replace(".", " . ").replace("?", " ? ").replace("!", " ! ").replace(":", " : ").split()})
#: names are spelled in single-letter wordpieces: an unseen name is still tokenizable
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIAL + TEMPLATE_WORDS + list(string.ascii_lowercase) + [f"##{c}" for c in string.ascii_lowercase]


def _name(rng: np.random.Generator) -> str:
    syllables = ["ka", "mo", "ri", "ta", "ne", "so", "lu", "vi", "da", "xe", "po", "ga"]
    parts = ["".join(rng.choice(syllables, size=rng.integers(2, 4))) for _ in range(rng.integers(1, 3))]
    name = " ".join(parts)
    return name.title() if rng.random() < 0.7 else name


def _records(n: int, seed: int, *, labelled: bool = True) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        template, name = TEMPLATES[rng.integers(len(TEMPLATES))], _name(rng)
        before = FILLER[rng.integers(len(FILLER))] + " " if rng.random() < 0.5 else ""
        text = before + template.format(n=name)
        start = text.index(name)
        spans = [{"start": start, "end": start + len(name), "label": "NAME"}] if labelled else []
        out.append({"id": str(i), "text": text, "spans": spans})
    return out


def _tiny_base(directory) -> str:
    torch, transformers = require_transformers()
    vocab = directory / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    config = transformers.BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                                     num_labels=len(CLASSES))
    torch.manual_seed(0)
    transformers.BertForTokenClassification(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


def _train(base: str, records: list[dict]):
    return train_transformer(records, base=base, epochs=10, max_steps=150, batch_size=16, lr=5e-3,
                             max_length=32, stride=8, seed=0)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    if not HAVE:
        pytest.skip("torch/transformers not installed (pip install 'embedanon[train]')")
    torch, _ = require_transformers()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is ~6x faster than two on a shared box
    base = _tiny_base(tmp_path_factory.mktemp("tiny-base"))
    trained = _train(base, _records(400, seed=1))
    path = trained.save(tmp_path_factory.mktemp("tiny-trained"))
    yield base, trained, path
    torch.set_num_threads(threads)


# -- always: the lazy-import contract -----------------------------------------------------------------
def test_import_embedanon_never_imports_torch():
    code = ("import sys, embedanon; from embedanon.detectors import DETECTORS; DETECTORS.names(); "
            "import embedanon.detectors.transformer; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_missing_torch_is_a_one_line_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(ConfigError, match=r"needs torch and transformers: pip install 'embedanon\[train\]'") as info:
        build_detectors("transformer", transformer_path="anywhere")
    assert "\n" not in str(info.value)


def test_only_safetensors_weights_are_ever_loaded(tmp_path, monkeypatch):
    """A transformer_path holding pytorch_model.bin (a pickle, which transformers would unpickle)
    and no model.safetensors is refused before transformers reads anything, and weights are read
    with use_safetensors=True (found in the detector audit: loading never asked for safetensors).
    torch and transformers are stood in for, so this runs without them."""
    import json
    import types

    from embedanon.detectors import transformer

    calls = []

    class Loader:
        def __init__(self, what):
            self.what = what

        def from_pretrained(self, path, **options):
            calls.append((self.what, options))
            return types.SimpleNamespace(is_fast=True, to=lambda device: None)

    fake = types.SimpleNamespace(AutoTokenizer=Loader("tokenizer"),
                                 BertForTokenClassification=Loader("model"))
    torch = types.SimpleNamespace(device=lambda name: name)
    monkeypatch.setattr(transformer, "require_transformers", lambda: (torch, fake))
    (tmp_path / transformer.MANIFEST).write_text(json.dumps({"classes": list(CLASSES)}))
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04K\x01.")  # a pickle
    with pytest.raises(ConfigError, match="has no model.safetensors; .* never loaded") as info:
        transformer._load(tmp_path, for_training=False)
    assert calls == [] and "\n" not in str(info.value)
    (tmp_path / "model.safetensors").write_bytes(b"")
    transformer._load(tmp_path, for_training=False)
    assert [what for what, _ in calls] == ["tokenizer", "model"]
    assert calls[1][1]["use_safetensors"] is True


def test_piece_labels_give_ignored_words_the_loss_ignore_index():
    """Decision 0611 on the transformer path (plain numpy: runs without torch)."""
    from embedanon.detectors.transformer import IGNORE, Encoded

    # "Seen Mercy Hospital Ana": 4 words, "Hospital" in two pieces
    enc = Encoded(ids=np.arange(5), types=np.zeros(5, np.int64), first=np.array([0, 1, 2, 4]),
                  starts=np.array([0, 5, 11, 20]), ends=np.array([4, 10, 19, 23]))
    spans = [{"start": 20, "end": 23, "label": "NAME"}]
    b_name = CLASSES.index("B-NAME")
    assert piece_labels(enc, spans).tolist() == [0, 0, 0, IGNORE, b_name]
    assert piece_labels(enc, spans, [[5, 19]]).tolist() == [0, IGNORE, IGNORE, IGNORE, b_name]
    assert piece_labels(enc, spans, [[15, 23]]).tolist() == [0, 0, IGNORE, IGNORE, b_name]


def test_transformer_needs_a_path():
    with pytest.raises(ConfigError, match="needs the detector option transformer_path=DIR"):
        build_detectors("transformer")


def test_windows_match_a_brute_force_reference():
    for n in range(0, 120):
        for max_length, stride in ((10, 0), (10, 3), (16, 7), (32, 8)):
            got = windows(n, max_length=max_length, stride=stride)
            size = max_length - 2
            assert all(0 <= a < b <= n and b - a <= size for a, b in got) or n == 0
            covered = sorted({i for a, b in got for i in range(a, b)})
            assert covered == list(range(n))  # every piece is in some window
            for (a0, b0), (a1, b1) in zip(got, got[1:]):
                assert a1 > a0 and b1 > b0 and b0 - a1 == stride  # consecutive windows overlap by stride
            assert len(got) == (1 if n <= size else 1 + -(-(n - size) // (size - stride)))


# -- with torch: labels, training, detection ----------------------------------------------------------
@needs_torch
def test_first_wordpiece_labelling_and_offsets(tiny):
    _, trained, _ = tiny
    text = "please call Kamo Rita today"
    enc = encode(trained.tokenizer, text, case_channel=True)
    words = [text[a:b] for a, b in zip(enc.starts, enc.ends)]
    assert words == ["please", "call", "Kamo", "Rita", "today"]
    labels = piece_labels(enc, [{"start": 12, "end": 21, "label": "NAME"}])
    pieces = trained.tokenizer.convert_ids_to_tokens(enc.ids.tolist())
    assert pieces == ["please", "call", "k", "##a", "##m", "##o", "r", "##i", "##t", "##a", "today"]
    b, i = CLASSES.index("B-NAME"), CLASSES.index("I-NAME")
    assert labels.tolist() == [0, 0, b, *[IGNORE] * 3, i, *[IGNORE] * 3, 0]
    assert enc.types.tolist() == [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]  # case channel: upper-case pieces


@needs_torch
def test_training_lowers_the_loss_and_finds_unseen_names(tiny):
    _, trained, path = tiny
    first, last = np.mean(trained.losses[:10]), np.mean(trained.losses[-10:])
    assert last < 0.25 * first, (first, last)
    detector = TransformerDetector(path=path)
    text = "the weather is nice today. hello Zovuxe Pagadi, how are you?"  # a name never seen in training (z: no training name has it)
    spans = detector.detect(text)
    assert [(text[s.start:s.end], s.label, s.source) for s in spans] == [("Zovuxe Pagadi", "NAME", "transformer")]
    assert detector.detect("the weather is nice today.") == []


@needs_torch
def test_negative_control_no_labels_learns_no_names(tiny, tmp_path):
    base, _, _ = tiny
    unlabelled = _train(base, _records(400, seed=1, labelled=False)).save(tmp_path / "o")
    assert TransformerDetector(path=unlabelled).detect("hello Zovuxe Pagadi, how are you?") == []


@needs_torch
def test_save_load_round_trip(tiny, tmp_path):
    torch, _ = require_transformers()
    _, trained, path = tiny
    detector = TransformerDetector(path=path)
    saved, loaded = trained.model.state_dict(), detector.model.state_dict()
    assert saved.keys() == loaded.keys() and all(torch.equal(saved[k], loaded[k]) for k in saved)
    assert detector.manifest["train"]["steps"] == len(trained.losses) == 150
    assert detector.manifest["classes"] == list(CLASSES) and detector.max_length == 32
    again = TransformerDetector(path=path, threshold=0.3)
    text = "my name is Mori Kane. thanks Lusovi!"
    np.testing.assert_array_equal(detector.probabilities(text)[2], again.probabilities(text)[2])
    assert again.threshold == 0.3


@needs_torch
def test_long_texts_are_windowed_and_spans_are_valid(tiny):
    _, _, path = tiny
    detector = TransformerDetector(path=path, batch_size=2)
    long = " ".join(FILLER * 6) + " my name is Zovuxe."  # far past one 32-piece window
    spans = detector.detect(long)
    assert [long[s.start:s.end] for s in spans] == ["Zovuxe"]
    rng = np.random.default_rng(5)
    texts = ["", "   ", "\u2028", "é", "hello José Ñuñez, how are you? 🙂", "THANKS KAMORI!\u2028my name is x."]
    texts += [r["text"] for r in _records(30, seed=9)]
    alphabet = list(string.ascii_letters + " ,.!?:\n\u2028é🙂")
    texts += ["".join(rng.choice(alphabet, size=int(rng.integers(0, 200)))) for _ in range(30)]
    for text in texts:
        spans = detector.detect(text)
        assert all(isinstance(s, Span) and s.check(text) is s for s in spans)
        assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))  # sorted, disjoint
        assert all(text[s.start:s.end].strip() == text[s.start:s.end] != "" for s in spans)


@needs_torch
def test_bad_paths_and_options(tiny, tmp_path):
    _, _, path = tiny
    with pytest.raises(ConfigError, match="has no embedanon-detector.json"):
        TransformerDetector(path=tmp_path)
    with pytest.raises(ConfigError, match="threshold must be a number in"):
        TransformerDetector(path=path, threshold=1.0)
    with pytest.raises(ConfigError, match="stride"):
        train_transformer(_records(2, 0), base=str(path), max_length=16, stride=14)


# -- the CLI: embedanon detector train --backend transformer ------------------------------------------
def _spans_file(tmp_path, n: int = 20):
    import json

    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records(n, seed=3)), encoding="utf-8")
    return path


def test_cli_backend_errors_are_one_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from embedanon.cli import app

    data = _spans_file(tmp_path, 2)
    bad = CliRunner().invoke(app, ["detector", "train", "--data", str(data), "-o", str(tmp_path / "o"),
                                   "--backend", "nope"])
    assert bad.exit_code == 2 and "backend must be 'model' or 'transformer'" in bad.output
    monkeypatch.setitem(sys.modules, "torch", None)
    missing = CliRunner().invoke(app, ["detector", "train", "--data", str(data), "-o", str(tmp_path / "o"),
                                       "--backend", "transformer"])
    assert missing.exit_code == 2 and "needs torch and transformers" in missing.output
    assert len(missing.output.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


@needs_torch
def test_cli_trains_a_transformer_and_info_reads_it(tiny, tmp_path):
    import json

    from typer.testing import CliRunner

    from embedanon.cli import app

    base, _, _ = tiny
    out = tmp_path / "cli-model"
    result = CliRunner().invoke(app, ["detector", "train", "--backend", "transformer", "--data",
                                      str(_spans_file(tmp_path)), "-o", str(out), "--base", base])
    assert result.exit_code == 0, result.output
    assert "trained on 20 documents (2 steps)" in result.output  # 20 docs, batch 16, 1 epoch
    info = CliRunner().invoke(app, ["detector", "info", str(out)])
    manifest = json.loads(info.output)
    assert manifest["kind"] == "transformer-token-classification" and manifest["train"]["data"] == "spans.jsonl"
    assert manifest["max_length"] == 64  # capped at the tiny model's position embeddings
    assert build_detectors("transformer", transformer_path=str(out)).detect("how are you?") is not None


def test_length_grouped_batches_cover_every_window_once():
    from embedanon.detectors.transformer import length_grouped_batches

    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 120, size=1003)
    batches = length_grouped_batches(lengths, 16, rng, pool=8)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(1003)) and all(len(b) <= 16 for b in batches)
    padded = sum(len(b) * lengths[b].max() for b in batches)
    random_batches = np.array_split(rng.permutation(1003), len(batches))
    assert padded < 0.8 * sum(len(b) * lengths[b].max() for b in random_batches)  # less padding than random
