"""Dataset loaders on small files written here in each corpus's own layout (never ../shared)."""

from __future__ import annotations

import csv
import gzip
import json
import lzma
import zipfile
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from embedanon.errors import ConfigError
from embedanon.utility.datasets import LOADERS, load_dataset, stratified_sample


def _write_csv(path: Path, header: list[str], rows: list[list[str]], opener=open) -> Path:
    with opener(path, "wt", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_registry_lists_every_builtin_loader() -> None:
    assert LOADERS.names() == sorted(
        ["ag-news", "csv", "imdb", "jsonl", "mtsamples", "pubmed", "sentence-polarity", "trec"]
    )


def test_csv_loader_cleans_dedupes_and_drops_conflicting_duplicates(tmp_path: Path) -> None:
    path = _write_csv(
        tmp_path / "notes.csv",
        ["id", "body", "y"],
        [
            ["1", "chest  pain\nat rest", "cardio"],
            ["2", "knee fracture", "ortho"],
            ["3", "chest pain at rest", "cardio"],  # duplicate after whitespace cleaning: kept once
            ["4", "ambiguous note", "cardio"],
            ["5", "ambiguous note", "ortho"],  # same text, two labels: dropped
            ["6", "   ", "ortho"],  # empty
        ],
    )
    data = load_dataset("csv", path, text_column="body", label_column="y")
    assert data.texts == ("chest pain at rest", "knee fracture")
    assert data.labels == ("cardio", "ortho")


def test_tsv_gzip_and_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "d.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8", newline="") as fh:
        fh.write("text\tlabel\nhello world\ta\ngood bye\tb\n")
    assert load_dataset("csv", path).labels == ("a", "b")
    jl = tmp_path / "d.jsonl"
    jl.write_text(
        json.dumps({"t": "one two", "c": 1}) + "\n\n" + json.dumps({"t": "three", "c": 2}) + "\n",
        encoding="utf-8",
    )
    data = load_dataset("jsonl", jl, text_column="t", label_column="c")
    assert data.texts == ("one two", "three") and data.labels == ("1", "2")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text_column": "nope"}, r"datasets\[0\]\.text_column: no column 'nope'"),
        ({"label_column": "nope"}, r"datasets\[0\]\.label_column: no column 'nope'"),
        ({"colour": "red"}, r"datasets\[0\]: unknown key 'colour' for loader 'csv'; valid keys: delimiter, "),
        ({"limit": 1}, r"datasets\[0\]\.limit must be an integer >= 2"),
        ({"part": "test"}, r"datasets\[0\]\.part must be one of all, dev, heldout"),
    ],
)
def test_bad_options_give_one_line_naming_the_key(tmp_path: Path, kwargs: dict, message: str) -> None:
    path = _write_csv(tmp_path / "d.csv", ["text", "label"], [["a b", "x"], ["c d", "y"]])
    with pytest.raises(ConfigError, match=message) as info:
        load_dataset("csv", path, where="datasets[0]", **kwargs)
    assert "\n" not in str(info.value)


def test_errors_never_quote_texts(tmp_path: Path) -> None:
    secret = "Patient John Smith"
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": secret, "label": "a"}) + "\n" + secret + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2 of d.jsonl is not valid JSON") as info:
        load_dataset("jsonl", path)
    assert "John" not in str(info.value)
    with pytest.raises(ConfigError, match="no such file"):
        load_dataset("csv", tmp_path / "missing.csv")
    with pytest.raises(ConfigError, match="unknown loader 'nope'; choose one of ag-news, csv"):
        load_dataset("nope", path)


@pytest.mark.parametrize("loader", ["csv", "mtsamples"])
def test_a_file_without_header_row_is_refused_without_quoting_its_first_record(tmp_path: Path, loader: str) -> None:
    """Found by the experiment audit: a CSV without its header row was refused with 'it has 3
    columns: '1', 'cardiology', 'Mr. James Walker, 62, ... Call his wife Linda at (312) 555-0143.''
    -- the first record, quoted in full. Now the first row is named by count only."""
    secret = "Mr. James Walker, 62, seen for chest pain. Call his wife Linda at (312) 555-0143."
    path = tmp_path / "d.csv"
    path.write_text(f'1,cardiology,"{secret}"\n2,neurology,headache\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_dataset(loader, path, where="datasets[0]", **({"text_column": "note"} if loader == "csv" else {}))
    message = str(info.value)
    assert "Walker" not in message and "cardiology" not in message and "555" not in message
    assert "in the first row of d.csv (3 columns; the first row must be a header row" in message


def test_a_column_named_but_for_case_is_suggested(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "d.csv", ["Text", "label"], [["a b", "x"], ["c d", "y"]])
    with pytest.raises(ConfigError, match=r"no column 'text' in the first row of d.csv \(2 columns; did you "
                                          r"mean 'Text'\?\)"):
        load_dataset("csv", path)


@pytest.mark.parametrize("bad", ["NaN", "Infinity"])
def test_a_nan_label_is_refused_like_a_null_one(tmp_path: Path, bad: str) -> None:
    """Found by the experiment audit: a JSON Lines label NaN (what json.dumps writes for a missing
    float) became a class 'nan' and was classified; a null label was refused. Now both are."""
    path = tmp_path / "d.jsonl"
    lines = [json.dumps({"text": f"note {i}", "label": "ab"[i % 2]}) for i in range(6)]
    lines[3] = '{"text": "note 3", "label": ' + bad + "}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"datasets\[0\]\.label_column: line 4 of d\.jsonl: field 'label' is "
                                          r"(nan|inf) \(a missing label"):
        load_dataset("jsonl", path, where="datasets[0]")
    path.write_text("\n".join(lines).replace(bad, "null") + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 4 of d.jsonl: field 'label' is not a string or number"):
        load_dataset("jsonl", path, where="datasets[0]")


@pytest.mark.parametrize("opener", [open, gzip.open])
def test_a_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path: Path, opener) -> None:  # type: ignore[no-untyped-def]
    """Found by the experiment audit: a CSV saved as Excel's "CSV UTF-8" (a UTF-8 byte order mark
    first) was refused with "no column 'text'": the first header name was '\ufefftext'."""
    path = tmp_path / ("d.csv" if opener is open else "d.csv.gz")
    with opener(path, "wt", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows([["text", "label"], ["a b", "x"], ["c d", "y"]])
    assert load_dataset("csv", path).texts == ("a b", "c d")
    jl = tmp_path / "d.jsonl"
    jl.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in [("a b", "x"), ("c d", "y")]),
                  encoding="utf-8-sig")
    assert load_dataset("jsonl", jl).labels == ("x", "y")


def test_single_class_is_refused(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "d.csv", ["text", "label"], [["a b", "x"], ["c d", "x"]])
    with pytest.raises(ConfigError, match="at least 2 classes"):
        load_dataset("csv", path)


def _brute_quota(labels: list[str], n: int) -> dict[str, int]:
    """Largest-remainder allocation by enumeration: the integer vector nearest the exact shares."""
    classes = sorted(set(labels))
    counts = Counter(labels)
    exact = {c: n * counts[c] / len(labels) for c in classes}
    best = None
    for extra in combinations(classes, n - sum(int(exact[c]) for c in classes)):
        quota = {c: int(exact[c]) + (c in extra) for c in classes}
        err = sorted((abs(quota[c] - exact[c]) for c in classes), reverse=True)
        if best is None or err < best[0]:
            best = (err, quota)
    assert best is not None
    return best[1]


@pytest.mark.parametrize("n", [2, 7, 13, 30])
def test_stratified_sample_keeps_shares_and_is_seeded(n: int) -> None:
    labels = ["a"] * 17 + ["b"] * 9 + ["c"] * 5 + ["d"] * 3
    picked = stratified_sample(labels, n, seed=3)
    assert picked == sorted(set(picked)) and len(picked) == n
    assert Counter(labels[i] for i in picked) == Counter(
        {c: q for c, q in _brute_quota(labels, n).items() if q}
    )
    assert picked == stratified_sample(labels, n, seed=3)
    draws = {tuple(stratified_sample(labels, n, seed=s)) for s in range(5)}
    assert len(draws) > 1  # the seed matters


def test_limit_and_parts(tmp_path: Path) -> None:
    rows = [[f"doc number {i}", "ab"[i % 2]] for i in range(100)]
    path = _write_csv(tmp_path / "d.csv", ["text", "label"], rows)
    small = load_dataset("csv", path, limit=20, seed=1)
    assert len(small) == 20 and small.counts() == {"a": 10, "b": 10}
    dev = load_dataset("csv", path, part="dev")
    held = load_dataset("csv", path, part="heldout")
    assert len(dev) == len(held) == 50
    assert not set(dev.texts) & set(held.texts)
    assert load_dataset("csv", path, part="dev", seed=9).texts == dev.texts  # split seed is fixed


def test_mtsamples_class_selection(tmp_path: Path) -> None:
    header = ["note_id", "description", "medical_specialty", "sample_name", "transcription", "keywords"]
    rows = [
        ["1", "", " Urology", "", "cystoscopy done", ""],
        ["2", "", "Surgery", "", "cystoscopy done", ""],  # same note also filed as a note type
        ["3", "", "Neurology", "", "headache and seizure", ""],
        ["4", "", "Orthopedic", "", "spine note", ""],
        ["5", "", "Neurology", "", "spine note", ""],  # two chosen specialties: dropped
        ["6", "", "Surgery", "", "appendectomy", ""],  # no chosen specialty
    ]
    path = _write_csv(tmp_path / "mt.csv.gz", header, rows, opener=gzip.open)
    data = load_dataset("mtsamples", path)
    assert dict(zip(data.texts, data.labels)) == {"cystoscopy done": "Urology", "headache and seizure": "Neurology"}
    mine = load_dataset("mtsamples", path, specialties=["Surgery", "Neurology"])
    assert mine.counts() == {"Neurology": 2, "Surgery": 2}


def test_imdb_ag_news_pubmed(tmp_path: Path) -> None:
    imdb = _write_csv(
        tmp_path / "imdb.csv.xz",
        ["id", "label", "rating", "text"],
        [["0", "neg", "2", "bad<br /><br />film"], ["1", "pos", "9", "great film"], ["2", "unsup", "0", "x"]],
        opener=lzma.open,
    )
    data = load_dataset("imdb", imdb)
    assert data.texts == ("bad film", "great film") and data.labels == ("neg", "pos")
    ag = _write_csv(
        tmp_path / "ag.csv", ["label", "title", "description"], [["1", "Talks", "a\\b"], ["2", "Win", "c"]]
    )
    assert load_dataset("ag-news", ag).texts == ("Talks. a b", "Win. c")
    assert load_dataset("ag-news", ag).labels == ("World", "Sports")
    pm = _write_csv(tmp_path / "pm.csv", ["abstract", "term"], [["x y", "covid"], ["z", "meningitis"]])
    assert load_dataset("pubmed", pm).labels == ("covid", "meningitis")


def test_nltk_zips_are_read_directly(tmp_path: Path) -> None:
    sp = tmp_path / "sentence_polarity.zip"
    with zipfile.ZipFile(sp, "w") as z:
        z.writestr("sentence_polarity/rt-polarity.pos", "a fine film . \nbeaut\xe9 ".encode("latin-1"))
        z.writestr("sentence_polarity/rt-polarity.neg", b"dull . \n")
    data = load_dataset("sentence-polarity", sp)
    assert data.counts() == {"neg": 1, "pos": 2} and "beauté" in data.texts
    qc = tmp_path / "qc.zip"
    with zipfile.ZipFile(qc, "w") as z:
        z.writestr("qc/train.txt", b"DESC:manner How did it go ?\nHUM:ind Who was he ?\n")
        z.writestr("qc/test.txt", b"NUM:date When was it ?\n")
    assert load_dataset("trec", qc).labels == ("DESC", "HUM")
    assert load_dataset("trec", qc, split="all", fine=True).labels == ("DESC:manner", "HUM:ind", "NUM:date")
    with pytest.raises(ConfigError, match=r"dataset\.split must be one of train, test, all"):
        load_dataset("trec", qc, split="dev")
    with pytest.raises(ConfigError, match=r"dataset\.path: cannot read .*bad\.zip \(BadZipFile\)"):
        load_dataset("trec", _write_csv(tmp_path / "bad.zip", ["a"], [["b"]]))
    with pytest.raises(ConfigError, match=r"dataset \(trec\): needs at least 2 classes, got 1"):
        load_dataset("trec", qc, split="test")  # named like the other errors (QA pass 6)


@pytest.mark.parametrize(("n", "floor"), [(10, 3), (12, 3), (20, 2), (34, 4), (8, 3)])
def test_stratified_sample_floor_keeps_every_class_for_cross_validation(n: int, floor: int) -> None:
    """A quick run (limit 150) left TREC's rarest class with 2 documents, under its 3 folds."""
    labels = ["a"] * 60 + ["b"] * 30 + ["c"] * 3 + ["d"] * 2
    counts = Counter(labels[i] for i in stratified_sample(labels, n, seed=1, floor=floor))
    sizes = Counter(labels)
    assert all(counts[c] >= min(floor, sizes[c]) for c in sizes)
    assert sum(counts.values()) == max(n, sum(min(floor, sizes[c]) for c in sizes))
    plain = Counter(labels[i] for i in stratified_sample(labels, n, seed=1))
    assert counts == plain or any(plain[c] < min(floor, sizes[c]) for c in sizes)  # only when needed


def test_json_labels_equal_as_numbers_are_one_class(tmp_path: Path) -> None:
    """Left by an audit: JSON Lines labels 1 and 1.0 (one number) became two classes, '1' and
    '1.0'. Numbers are compared as the decimals JSON writes; strings and booleans stay apart."""
    path = tmp_path / "d.jsonl"
    spelled = ["1", "1.0", "1e0", "10E-1", "0", "0.0", "-0.0", "0e5", "2.50", "0.25e1", "1e5", "100000",
               "0.1", "0.10000000000000001", '"pos"', '" pos "', "true"]
    path.write_text("".join(f'{{"text": "note {i}", "label": {s}}}\n' for i, s in enumerate(spelled)),
                    encoding="utf-8")
    data = load_dataset("jsonl", path)
    assert list(data.labels) == ["1", "1", "1", "1", "0", "0", "0", "0", "2.5", "2.5", "100000", "100000",
                                 "0.1", "0.10000000000000001", "pos", "pos", "True"]
