#!/usr/bin/env python
"""Throughput and memory benchmark of the ``anonymize`` command line (not a test).

Builds a corpus of real English text (one document per line) of ``--mb`` megabytes, then runs
``anonymize CORPUS -o OUT --seed 1 --quiet --jobs J [--mechanism M ...]`` as real subprocesses
and reports wall time, MB/s, words/s, MB/s per core and peak memory, as JSON (stdout or
``--json``) plus a one-line summary per mechanism on stderr.

Targets (from the issue): >= 3 MB/s per core for ``knn``, near-linear scaling with ``--jobs 2``,
peak RSS < 1 GB; for ``laplace``, ``sample`` at >= 0.7x the raw faiss flat-search rate;
``--detection`` (default on when ../shared/data exists): detection docs/s and MB/s of
``model,regex`` and of Presidio + spaCy sm side by side on the same corpus lines, ratio >= 10x;
``--review`` (issue 34): ``embedanon review`` of 30 real dialogues (NLTK webtext's overheard
conversations, about 530 words each) in <= 15 s wall, its peak memory on one 20 MB line and the page
size of a 5 MB record (``--review-only`` runs just this section).

Examples::

    .venv/bin/python scripts/bench.py                       # 20 MB, knn, jobs 1 and 2
    .venv/bin/python scripts/bench.py --mb 5 --mechanisms knn,laplace --epsilon laplace=10 \\
        --json research/bench-latest.json
    .venv/bin/python scripts/bench.py --review-only          # the review page's targets
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import json
import lzma
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MB = 1_000_000  # throughput is reported in decimal megabytes of UTF-8 input

#: (path relative to SHARED_DATA, text column); documents are taken round-robin across sources.
SOURCES = (
    ("imdb/imdb_unsup.csv.xz", "text"),
    ("mtsamples/mtsamples.csv.gz", "transcription"),
    ("imdb/imdb_train.csv.xz", "text"),
)
#: Documents in the warm-up file (it only needs to trigger the on-disk neighbor-table build).
WARMUP_DOCS = 20
#: Default --epsilon of the metric-DP mechanisms (per word), only so they can run at all.
DEFAULT_EPSILON = {"laplace": 10.0, "exponential": 10.0, "tem": 10.0, "mahalanobis": 10.0}


# ------------------------------------------------------------------------------------------------
# Corpus
# ------------------------------------------------------------------------------------------------
def _open_text(path: Path):
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8", newline="")
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def _documents(path: Path, column: str) -> Iterator[str]:
    csv.field_size_limit(sys.maxsize)
    with _open_text(path) as fh:
        for row in csv.DictReader(fh):
            text = row.get(column) or ""
            # IMDB keeps the reviews' HTML line breaks; they are markup, not English text.
            text = " ".join(text.replace("<br />", " ").split())
            if text:
                yield text


def build_corpus(target: Path, nbytes: int, data_dir: Path) -> dict:
    """Write about ``nbytes`` of text, one document per line; return where it came from."""
    present = [(data_dir / rel, col) for rel, col in SOURCES if (data_dir / rel).is_file()]
    docs = 0
    written = 0
    counts: dict[str, int] = {}
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        if present:
            streams = [(str(p.relative_to(data_dir)), _documents(p, c)) for p, c in present]
            while streams and written < nbytes:
                for item in list(streams):
                    name, stream = item
                    doc = next(stream, None)
                    if doc is None:
                        streams.remove(item)
                        continue
                    line = doc + "\n"
                    out.write(line)
                    written += len(line.encode("utf-8"))
                    docs += 1
                    counts[name] = counts.get(name, 0) + 1
                    if written >= nbytes:
                        break
            source = "shared-data"
        if written < nbytes:  # no shared data (or not enough): repeat the bundled examples
            bundled = [" ".join(p.read_text(encoding="utf-8").split())
                       for p in sorted((REPO / "examples").glob("*.txt"))]
            bundled = [b for b in bundled if b]
            if not bundled:
                raise SystemExit("no corpus: neither ../shared/data nor examples/*.txt found")
            source = "bundled-fallback" if not present else "shared-data+bundled-fallback"
            i = 0
            while written < nbytes:
                line = bundled[i % len(bundled)] + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
                docs += 1
                counts["examples"] = counts.get("examples", 0) + 1
                i += 1
    return {"source": source, "docs": docs, "bytes": written, "docs_by_source": counts}


def short_lines(source: Path, target: Path, width: int = 60) -> dict:
    """The same text cut into turns of about ``width`` bytes at word boundaries (chat logs,
    CSV cells): the record shape where per-record overhead dominates."""
    lines = written = 0
    with open(source, encoding="utf-8") as src, open(target, "w", encoding="utf-8", newline="\n") as out:
        for doc in src:
            turn: list[str] = []
            size = 0
            for word in doc.split():
                turn.append(word)
                size += len(word) + 1
                if size >= width:
                    line = " ".join(turn) + "\n"
                    out.write(line)
                    written += len(line.encode("utf-8"))
                    lines += 1
                    turn, size = [], 0
            if turn:
                line = " ".join(turn) + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
                lines += 1
    return {"docs": lines, "bytes": written, "mean_line_bytes": round(written / max(lines, 1), 1)}


FLOOR_SCRIPT = r"""
import re, sys, time
import numpy as np
from embedanon.pipeline.runtime import get_runtime
from embedanon.config import AnonymizerConfig
rt = get_runtime(AnonymizerConfig())
vocab = {w: i for i, w in enumerate(rt.store.words)}
table, words = rt.mechanism.table, rt.store.words
split = re.compile(r"([A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*)").split
rng = np.random.default_rng(0)
t0 = time.process_time()
n = 0
with open(sys.argv[1], encoding="utf-8") as fh, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in fh:
        pieces = split(line)
        ids = [vocab.get(w.lower(), 0) for w in pieces[1::2]]
        if ids:
            picks = table[ids, rng.integers(0, 10, len(ids))]
            pieces[1::2] = [words[j] for j in picks.tolist()]
        out.write("".join(pieces))
        n += len(line.encode("utf-8"))
print(n / 1e6 / (time.process_time() - t0))
"""


def floor_mb_per_cpu_s(corpus: Path, out: Path) -> float:
    """The pure-Python floor for the same knn work, measured now (regex split + dict lookup +
    one vectorised draw per line + join), MB per CPU-second of the loop itself."""
    proc = subprocess.run([sys.executable, "-c", FLOOR_SCRIPT, str(corpus), str(out)],
                          capture_output=True, text=True, check=True)
    return round(float(proc.stdout.strip().splitlines()[-1]), 3)


def count_words(path: Path) -> int:
    from embedanon.text import WORD_RE

    total = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            total += sum(1 for _ in WORD_RE.finditer(line))
    return total


# ------------------------------------------------------------------------------------------------
# Measuring one subprocess
# ------------------------------------------------------------------------------------------------
def _proc_children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # exited meanwhile
        # The command name (field 2) may hold spaces and parentheses: parse after the last ')'.
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def _memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB from smaps_rollup; (0, 0) if it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith(b"Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


class TreeSampler(threading.Thread):
    """Polls the process tree under ``root`` and keeps the peak of its summed RSS and PSS.

    Forked pool workers share the parent's pages copy-on-write, so the summed RSS counts shared
    pages once per process and overstates what the tree really holds; the summed PSS (shared
    pages divided among their sharers) is the honest total. Polling can miss a short spike, which
    is why the max single-process figure comes from the kernel (``wait4``) instead.
    """

    def __init__(self, root: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.peak_rss_sum = self.peak_pss_sum = self.max_procs = 0
        self._halt = threading.Event()

    def run(self) -> None:
        if not os.path.isdir("/proc"):
            return
        while not self._halt.is_set():
            children = _proc_children()
            tree, todo = [], [self.root]
            while todo:
                pid = todo.pop()
                tree.append(pid)
                todo.extend(children.get(pid, ()))
            mem = [_memory_kib(p) for p in tree]
            self.peak_rss_sum = max(self.peak_rss_sum, sum(m[0] for m in mem))
            self.peak_pss_sum = max(self.peak_pss_sum, sum(m[1] for m in mem))
            self.max_procs = max(self.max_procs, sum(1 for m in mem if m[0]))
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def run_measured(cmd: list[str], env: dict[str, str], log: Path, poll: float) -> dict:
    """Run ``cmd`` to completion; wall time, exit status and peak memory of its process tree.

    Peak single-process RSS: ``os.wait4`` returns the child's rusage with RUSAGE_BOTH semantics,
    i.e. ``ru_maxrss`` = max(child's own peak, peaks of every descendant it reaped). The CLI
    reaps its pool workers, so this is the exact largest peak of any one process in the tree,
    for this run alone (unlike ``getrusage(RUSAGE_CHILDREN)`` in this process, which is a max
    over every child this benchmark has ever waited for).
    """
    with open(log, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        sampler = TreeSampler(proc.pid, poll)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        sampler.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen quiet
    result = {
        "wall_s": round(wall, 3),
        "returncode": proc.returncode,
        "cpu_user_s": round(usage.ru_utime, 2),
        "cpu_sys_s": round(usage.ru_stime, 2),
        "peak_rss_max_process_mb": round(usage.ru_maxrss / 1024, 1),  # Linux: KiB
        "peak_rss_sum_mb": round(sampler.peak_rss_sum / 1024, 1),
        "peak_pss_sum_mb": round(sampler.peak_pss_sum / 1024, 1),
        "max_processes_seen": sampler.max_procs,
        "load_average_1m_after": round(os.getloadavg()[0], 2),
    }
    if proc.returncode != 0:
        result["stderr_tail"] = log.read_text(encoding="utf-8", errors="replace")[-2000:]
    return result


def cli_command(corpus: Path, out: Path, mechanism: str, jobs: int, extra: list[str]) -> list[str]:
    exe = Path(sys.executable).with_name("anonymize")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "embedanon", "anonymize"]
    cmd = base + [str(corpus), "-o", str(out), "--seed", "1", "--quiet", "--jobs", str(jobs)]
    if mechanism != "knn":
        cmd += ["--mechanism", mechanism]
    return cmd + extra


# ------------------------------------------------------------------------------------------------
# laplace sample() vs raw faiss flat search
# ------------------------------------------------------------------------------------------------
def laplace_vs_faiss(corpus: Path, n_queries: int, params: dict, seed: int = 1) -> dict:
    """Rate of raw ``IndexFlatIP`` k=1 search vs the laplace mechanism's ``sample`` on the same ids.

    The ids are the first ``n_queries`` in-vocabulary words of the corpus (a realistic mix of
    repeats); the raw search queries their (noise-free) vectors over the candidate vectors, which
    is the floor of any mechanism that perturbs a vector and takes its nearest candidate.
    """
    import faiss
    import numpy as np

    from embedanon.config import AnonymizerConfig
    from embedanon.mechanisms import build_mechanism
    from embedanon.noise import NoiseSource, ReleaseKey, Stage
    from embedanon.pipeline.runtime import get_runtime
    from embedanon.text import WORD_RE, lookup_key

    rt = get_runtime(AnonymizerConfig())  # default embedding and candidate policy
    store, index = rt.store, rt.index
    ids: list[int] = []
    with open(corpus, encoding="utf-8") as fh:
        for line in fh:
            for m in WORD_RE.finditer(line):
                i = store.id_of(lookup_key(m.group()))
                if i >= 0:
                    ids.append(i)
            if len(ids) >= n_queries:
                break
    id_arr = np.asarray(ids[:n_queries], dtype=np.int64)
    n = len(id_arr)

    flat = faiss.IndexFlatIP(store.dim)
    flat.add(np.ascontiguousarray(index.candidate_vectors, dtype=np.float32))
    queries = np.ascontiguousarray(store.vectors[id_arr], dtype=np.float32)
    t0 = time.perf_counter()
    flat.search(queries, 1)
    faiss_s = time.perf_counter() - t0

    mech = build_mechanism("laplace", index, **params)
    source = NoiseSource(ReleaseKey.from_seed(seed))
    tags = np.repeat(source.tags([b"bench"]), n, axis=0)
    noise = source.noise(tags, Stage.EXPERIMENT, np.arange(n))
    mech.sample(id_arr[:1000], noise.take(np.arange(1000)))  # lazy state outside the timing
    t0 = time.perf_counter()
    mech.sample(id_arr, noise)
    sample_s = time.perf_counter() - t0
    faiss_rate, sample_rate = n / faiss_s, n / sample_s
    return {
        "queries": n,
        "unique_ids": int(len(np.unique(id_arr))),
        "candidates": int(index.n_candidates),
        "dim": int(store.dim),
        "faiss_threads": int(faiss.omp_get_max_threads()),
        "params": params,
        "faiss_flat_k1_s": round(faiss_s, 3),
        "faiss_flat_k1_per_s": round(faiss_rate),
        "laplace_sample_s": round(sample_s, 3),
        "laplace_sample_per_s": round(sample_rate),
        "ratio_laplace_to_faiss": round(sample_rate / faiss_rate, 3),
        "target_ratio": 0.7,
    }


# ------------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------------
def _parse_epsilons(specs: list[str], mechanisms: list[str]) -> dict[str, float]:
    """``--epsilon 5`` (every non-knn mechanism) and/or ``--epsilon laplace=10`` (one)."""
    eps = {m: DEFAULT_EPSILON.get(m, 10.0) for m in mechanisms if m != "knn"}
    for spec in specs:
        name, _, value = spec.rpartition("=")
        targets = [name] if name else list(eps)
        for t in targets:
            eps[t] = float(value)
    return eps


def detection_speed(corpus: Path, n_docs: int, rounds: int) -> dict:
    """Detection docs/s and MB/s of ``model,regex`` (with its local verifier, the default, and
    without it) and Presidio + spaCy sm on the same documents (the first ``n_docs`` corpus lines),
    interleaved in the same run; ratio target >= 10x with the verifier on."""
    from embedanon.detectors.evaluate import measure_speed
    from embedanon.detectors.registry import build_detectors
    from embedanon.errors import ConfigError

    with open(corpus, encoding="utf-8") as fh:
        texts = [line.rstrip("\n") for _, line in zip(range(n_docs), fh, strict=False)]
    detectors = {"model,regex": build_detectors("model,regex"),
                 "model,regex --no-verify": build_detectors("model,regex", verify=False)}
    out: dict = {"docs": len(texts), "rounds": rounds,
                 "mean_bytes_per_doc": round(sum(len(t.encode()) for t in texts) / max(1, len(texts)), 1)}
    try:
        detectors["presidio"] = build_detectors("presidio", verify=False)  # it would judge none of its spans
    except ConfigError as exc:  # the extra is not installed: model,regex alone
        out["presidio_skipped"] = str(exc)
    out["detectors"] = measure_speed(texts, detectors, rounds=rounds)
    if "presidio" in detectors:
        seconds = {k: out["detectors"][k] for k in ("model,regex", "presidio")}
        out["ratio_model_regex_vs_presidio"] = {
            "wall": seconds["presidio"]["seconds_wall"] / seconds["model,regex"]["seconds_wall"],
            "cpu": seconds["presidio"]["seconds_cpu"] / seconds["model,regex"]["seconds_cpu"],
            "target": 10.0}
        off = out["detectors"]["model,regex --no-verify"]
        out["ratio_without_verifier_vs_presidio"] = {
            "wall": seconds["presidio"]["seconds_wall"] / off["seconds_wall"],
            "cpu": seconds["presidio"]["seconds_cpu"] / off["seconds_cpu"]}
    return out


#: The review page's target (issue 34): 30 dialogues in at most this many seconds, wall clock.
REVIEW_TARGET_S = 15.0
REVIEW_DIALOGUES = 30


def review_dialogues(target: Path, data_dir: Path, count: int = REVIEW_DIALOGUES) -> dict:
    """Write ``count`` dialogues as JSONL: consecutive overheard conversations of NLTK's webtext
    (real New York conversations, speaker turns) packed into records of about 2,500 characters,
    the size of a doctor-patient dialogue."""
    import zipfile

    with zipfile.ZipFile(data_dir / "nltk_data" / "corpora" / "webtext.zip") as zf:
        text = zf.read("webtext/overheard.txt").decode("latin-1").replace("\r", "")
    conversations = [c.strip() for c in text.split("\n\n") if c.strip()]
    records: list[str] = []
    current: list[str] = []
    for conv in conversations:
        current.append(conv)
        if sum(map(len, current)) > 2500:
            records.append("\n\n".join(current))
            current = []
            if len(records) == count:
                break
    with open(target, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps({"text": record}) + "\n")
    return {"source": "nltk_data/corpora/webtext.zip:webtext/overheard.txt", "records": len(records),
            "words": sum(len(r.split()) for r in records), "bytes": target.stat().st_size}


def review_speed(work: Path, data_dir: Path, env: dict[str, str], poll: float) -> dict:
    """``embedanon review`` of 30 dialogues (a cold run, which may fill the disk cache, then two
    warm ones), and the memory of one 20 MB line and the page of a 5 MB record."""
    exe = Path(sys.executable).with_name("embedanon")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "embedanon"]
    key = work / "review.key"
    key.unlink(missing_ok=True)
    subprocess.run([*base, "keygen", str(key)], check=True, capture_output=True, env=env)
    dialogues = work / "dialogues.jsonl"
    out: dict = {"corpus": review_dialogues(dialogues, data_dir), "target_s": REVIEW_TARGET_S, "runs": []}
    page = work / "review.html"
    for run in ("cold", "warm", "warm"):
        command = [*base, "review", str(dialogues), "-o", str(page), "--sample", str(REVIEW_DIALOGUES),
                   "--key", str(key), "-q"]
        result = run_measured(command, env, work / "review.log", poll)
        result["run"] = run
        result["page_bytes"] = page.stat().st_size if page.exists() else 0
        out["runs"].append(result)
    warm = [r["wall_s"] for r in out["runs"] if r["run"] == "warm" and not r["returncode"]]
    out["warm_wall_s"] = min(warm) if warm else None
    # one long record: a 20 MB line (peak memory) and a 5 MB JSONL record (page size)
    words = dialogues.read_text(encoding="utf-8").split()
    for name, size, suffix in (("line_20mb", 20_000_000, ".txt"), ("record_5mb", 5_000_000, ".jsonl")):
        text = " ".join(words * (size // (len(" ".join(words)) + 1) + 1))[:size]
        path = work / f"{name}{suffix}"
        line = json.dumps({"text": text}) if suffix == ".jsonl" else text
        path.write_text(line + "\n", encoding="utf-8")
        result = run_measured([*base, "review", str(path), "-o", str(page), "--key", str(key), "-q"],
                              env, work / "review.log", poll)
        result["input_bytes"] = path.stat().st_size
        result["page_bytes"] = page.stat().st_size if page.exists() else 0
        out[name] = result
        path.unlink()
    return out


def review_lines(entry: dict) -> list[str]:
    if "error" in entry or "skipped" in entry:
        return [f"review: {entry.get('skipped') or 'failed: ' + str(entry.get('error'))[-200:]}"]
    runs = ", ".join(f"{r['run']} {r['wall_s']:.1f} s wall / {r['cpu_user_s'] + r['cpu_sys_s']:.1f} s CPU"
                     for r in entry["runs"])
    lines = [f"review of {entry['corpus']['records']} dialogues ({entry['corpus']['words']:,} words): {runs} "
             f"(target <= {entry['target_s']:g} s wall)"]
    for name in ("line_20mb", "record_5mb"):
        r = entry.get(name, {})
        if r:
            lines.append(f"review of one {name.replace('_', ' ')}: {r['wall_s']:.1f} s, peak RSS "
                         f"{r['peak_rss_max_process_mb']:.0f} MB, page {r['page_bytes'] / 1e6:.2f} MB")
    return lines


def machine_info() -> dict:
    info = {"cpu_count": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}
    with contextlib.suppress(OSError):  # a load >> cpu_count makes wall-clock numbers noisy
        info["load_average_1m"] = round(os.getloadavg()[0], 2)
    with contextlib.suppress(AttributeError):
        info["affinity_cpus"] = len(os.sched_getaffinity(0))
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        info["cpu_model"] = names[0] if names else None
    except OSError:
        pass
    for mod in ("numpy", "faiss"):
        try:
            info[mod] = __import__(mod).__version__
        except ImportError:
            info[mod] = None
    import embedanon

    info["embedanon"] = getattr(embedanon, "__version__", None)
    try:
        info["git_commit"] = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
            text=True, check=False).stdout.strip() or None
        info["git_dirty"] = bool(subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=False).stdout.strip())
    except OSError:
        pass
    return info


def _bench_mechanism(report: dict, shape: str, path: Path, shape_mb: float, shape_words: int, mech: str,
                     registered: list[str], extras: dict, epsilons: dict, jobs_list: list[int],
                     small: Path, tiny: Path, work: Path, env: dict, args: argparse.Namespace) -> None:
    """Cold and warm start, then the measured runs of one mechanism on one record shape."""
    entry: dict = {"mechanism": mech, "shape": shape}
    report["mechanisms"][f"{mech}/{shape}"] = entry
    if mech not in registered:
        entry["skipped"] = f"not registered (registered: {', '.join(registered)})"
        return
    extra = list(extras.get(mech, []))
    if mech in epsilons and "--epsilon" not in extra:
        extra += ["--epsilon", repr(epsilons[mech])]
    entry["cli_options"] = extra
    cold = run_measured(cli_command(small, work / "warm.out", mech, 1, extra), env,
                        work / f"{mech}-cold.log", args.poll)
    warm = run_measured(cli_command(tiny, work / "tiny.out", mech, 1, extra), env,
                        work / f"{mech}-warm.log", args.poll)
    entry["cold_start_s"] = cold["wall_s"]
    entry["warm_start_s"] = warm["wall_s"]
    entry["startup_peak_rss_mb"] = warm["peak_rss_max_process_mb"]
    if cold["returncode"] or warm["returncode"]:
        entry["error"] = cold.get("stderr_tail") or warm.get("stderr_tail")
        return
    for jobs in jobs_list:
        res = run_measured(cli_command(path, work / f"out-{mech}-{shape}-j{jobs}.txt", mech,
                                       jobs, extra),
                           env, work / f"{mech}-{shape}-j{jobs}.log", args.poll)
        res.update({"mechanism": mech, "shape": shape, "jobs": jobs})
        if res["returncode"] == 0:
            rate = shape_mb / res["wall_s"]
            res["mb_per_s"] = round(rate, 3)
            res["mb_per_s_per_core"] = round(rate / jobs, 3)
            res["words_per_s"] = round(shape_words / res["wall_s"])
            # CPU seconds of the whole tree: robust to other load on a shared machine,
            # where wall-clock MB/s mostly measures the neighbors.
            cpu = res["cpu_user_s"] + res["cpu_sys_s"]
            res["mb_per_cpu_s"] = round(shape_mb / cpu, 4) if cpu > 0 else None
            floor = report["floor_mb_per_cpu_s"][shape]
            res["share_of_floor"] = round(shape_mb / cpu / floor, 3) if cpu > 0 else None
            steady = res["wall_s"] - warm["wall_s"]
            res["mb_per_s_excl_startup"] = round(shape_mb / steady, 3) if steady > 0 else None
        report["runs"].append(res)
        print(f"  {mech} {shape} jobs={jobs}: {res.get('mb_per_s', 'FAILED')} MB/s "
              f"({res['wall_s']} s)", file=sys.stderr, flush=True)
    ok = {r["jobs"]: r for r in report["runs"] if r["mechanism"] == mech
          and r["shape"] == shape and r["returncode"] == 0}
    if 1 in ok:
        entry["scaling"] = {f"jobs{j}/jobs1": round(ok[j]["mb_per_s"] / ok[1]["mb_per_s"], 3)
                            for j in sorted(ok) if j != 1}
    if ok:
        entry["peak_rss_max_process_mb"] = max(r["peak_rss_max_process_mb"]
                                               for r in ok.values())
        entry["peak_pss_sum_mb"] = max(r["peak_pss_sum_mb"] for r in ok.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=20.0, help="corpus size in MB (default 20)")
    ap.add_argument("--mechanisms", default="knn", help="comma list (default knn)")
    ap.add_argument("--jobs", default="1,2", help="comma list of --jobs values (default 1,2)")
    ap.add_argument("--epsilon", action="append", default=[],
                    help="VALUE for every non-knn mechanism, or NAME=VALUE (repeatable)")
    ap.add_argument("--extra", action="append", default=[],
                    help="NAME='--gamma 0.5': more CLI options for one mechanism (repeatable)")
    ap.add_argument("--workdir", type=Path, help="keep corpus and outputs here (default: temp)")
    ap.add_argument("--data", type=Path, default=SHARED_DATA, help="shared data directory")
    ap.add_argument("--fresh-cache", action="store_true",
                    help="use an empty EMBEDANON_CACHE so the cold start includes table builds")
    ap.add_argument("--faiss-queries", type=int, default=200_000,
                    help="ids for the laplace_vs_faiss section (default 200000)")
    ap.add_argument("--poll", type=float, default=0.1, help="memory polling interval, seconds")
    ap.add_argument("--json", type=Path, help="write the JSON here instead of stdout")
    ap.add_argument("--shapes", default="long,short",
                    help="record shapes: long (one document per line), short (~60-byte lines)")
    ap.add_argument("--detection", action=argparse.BooleanOptionalAction, default=None,
                    help="detection speed, model,regex vs Presidio (default: on when --data exists)")
    ap.add_argument("--detection-docs", type=int, default=200, help="documents for --detection")
    ap.add_argument("--review", action=argparse.BooleanOptionalAction, default=False,
                    help="the review page: 30 dialogues, one 20 MB line, one 5 MB record")
    ap.add_argument("--review-only", action="store_true", help="run only the --review section")
    args = ap.parse_args(argv)
    if args.review_only:
        args.review, args.detection, shapes_off = True, False, True
    else:
        shapes_off = False
    if args.detection is None:
        args.detection = args.data.is_dir()
    shapes = [] if shapes_off else [x.strip() for x in args.shapes.split(",") if x.strip()]

    mechanisms = [m.strip().lower() for m in args.mechanisms.split(",") if m.strip()]
    jobs_list = [int(j) for j in args.jobs.split(",") if j.strip()]
    epsilons = _parse_epsilons(args.epsilon, mechanisms)
    extras = {}
    for spec in args.extra:
        name, _, opts = spec.partition("=")
        extras[name.strip().lower()] = opts.split()

    from embedanon.mechanisms import available

    registered = sorted(available())
    tmp = None
    if args.workdir is None:
        tmp = tempfile.mkdtemp(prefix="embedanon-bench-")
        work = Path(tmp)
    else:
        work = args.workdir
        work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # Measure an installed tool as users run it: with Python's bytecode cache. An environment
    # that sets PYTHONDONTWRITEBYTECODE (this project's sandbox does) recompiles every module of
    # the package at every start (about 0.13 s of CPU per run); the warm-up run writes the cache.
    bytecode_off = env.pop("PYTHONDONTWRITEBYTECODE", None) is not None
    if args.fresh_cache:
        env["EMBEDANON_CACHE"] = str(work / "cache")
        shutil.rmtree(work / "cache", ignore_errors=True)
    report: dict = {"machine": machine_info(), "registered_mechanisms": registered,
                    "cache": "fresh" if args.fresh_cache else "user",
                    "bytecode_cache": "on (PYTHONDONTWRITEBYTECODE removed for the runs)" if bytecode_off
                    else "as the environment has it"}
    try:
        report["runs"] = []
        report["mechanisms"] = {}
        if not args.review_only:
            corpus = work / "corpus.txt"
            t0 = time.perf_counter()
            stats = build_corpus(corpus, int(args.mb * MB), args.data)
            stats["words"] = count_words(corpus)
            stats["build_s"] = round(time.perf_counter() - t0, 1)
            report["corpus"] = stats
            mb = stats["bytes"] / MB

            # Small files for warm-up: the first run per mechanism pays process start, embedding
            # load and (with an empty cache) the neighbor-table build; the second shows the fixed
            # per-invocation cost that is still inside every measured run.
            small, tiny = work / "warmup.txt", work / "tiny.txt"
            with open(corpus, encoding="utf-8") as src, open(small, "w", encoding="utf-8") as dst:
                for _, line in zip(range(WARMUP_DOCS), src, strict=False):
                    dst.write(line)
            tiny.write_text("The patient was seen on Monday.\n", encoding="utf-8")

            report["floor_mb_per_cpu_s"] = {}
            corpora = {"long": (corpus, mb, stats["words"])}
            if "short" in shapes:
                short = work / "short.txt"
                report["corpus_short"] = short_lines(corpus, short)
                corpora["short"] = (short, report["corpus_short"]["bytes"] / MB, stats["words"])
            for shape in shapes:
                path, shape_mb, shape_words = corpora[shape]
                report["floor_mb_per_cpu_s"][shape] = floor_mb_per_cpu_s(path, work / "floor.out")
                for mech in mechanisms:
                    _bench_mechanism(report, shape, path, shape_mb, shape_words, mech, registered,
                                     extras, epsilons, jobs_list, small, tiny, work, env, args)
            if "laplace" in registered:
                params = {"epsilon": epsilons.get("laplace", DEFAULT_EPSILON["laplace"])}
                try:
                    report["laplace_vs_faiss"] = laplace_vs_faiss(corpus, args.faiss_queries, params)
                except Exception as exc:  # a benchmark reports a broken section, it does not stop
                    report["laplace_vs_faiss"] = {"error": f"{type(exc).__name__}: {exc}"}
            else:
                report["laplace_vs_faiss"] = {"skipped": "laplace is not registered"}
            if args.detection:
                try:
                    report["detection"] = detection_speed(corpus, args.detection_docs, rounds=2)
                except Exception as exc:  # a benchmark reports a broken section, it does not stop
                    report["detection"] = {"error": f"{type(exc).__name__}: {exc}"}
        if args.review:
            if not (args.data / "nltk_data" / "corpora" / "webtext.zip").is_file():
                report["review"] = {"skipped": "no NLTK webtext under --data"}
            else:
                try:
                    report["review"] = review_speed(work, args.data, env, args.poll)
                except Exception as exc:  # a benchmark reports a broken section, it does not stop
                    report["review"] = {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    text = json.dumps(report, indent=2)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    for line in summary_lines(report):
        print(line, file=sys.stderr)
    review_runs = [*report.get("review", {}).get("runs", [])] + [
        report["review"][k] for k in ("line_20mb", "record_5mb") if k in report.get("review", {})]
    return 1 if any(r["returncode"] for r in [*report["runs"], *review_runs]) else 0


def summary_lines(report: dict) -> list[str]:
    lines = []
    for mech, entry in report["mechanisms"].items():
        if "skipped" in entry or "error" in entry:
            lines.append(f"{mech}: {entry.get('skipped') or 'failed: ' + str(entry['error'])[-200:]}")
            continue
        parts = []
        for r in report["runs"]:
            if f"{r['mechanism']}/{r['shape']}" != mech:
                continue
            if r["returncode"]:
                parts.append(f"jobs={r['jobs']}: FAILED (exit {r['returncode']})")
            else:
                parts.append(f"jobs={r['jobs']}: {r['mb_per_s']:.3g} MB/s "
                             f"({r['mb_per_s_per_core']:.3g}/core, {r['mb_per_cpu_s']:.3g}/cpu-s, "
                             f"{r['share_of_floor']:.2f} of the floor)")
        tail = f", peak RSS {entry.get('peak_rss_max_process_mb', 0):.0f} MB"
        tail += f" (tree PSS {entry.get('peak_pss_sum_mb', 0):.0f} MB)"
        if entry.get("scaling"):
            tail += ", scaling " + ", ".join(f"{k} {v:.2f}" for k, v in entry["scaling"].items())
        tail += f", cold start {entry['cold_start_s']:.1f} s, warm start {entry['warm_start_s']:.1f} s"
        lines.append(f"{mech} " + ", ".join(parts) + tail)
    for shape, floor in report.get("floor_mb_per_cpu_s", {}).items():
        lines.append(f"pure-Python knn floor, {shape} records: {floor:.3g} MB per CPU-second")
    lvf = report.get("laplace_vs_faiss", {})
    if "ratio_laplace_to_faiss" in lvf:
        lines.append(f"laplace sample {lvf['laplace_sample_per_s']:,}/s vs faiss flat k=1 "
                     f"{lvf['faiss_flat_k1_per_s']:,}/s: ratio {lvf['ratio_laplace_to_faiss']:.2f}"
                     f" (target >= 0.7)")
    if "review" in report:
        lines += review_lines(report["review"])
    det = report.get("detection", {})
    for name, r in det.get("detectors", {}).items():
        lines.append(f"detection {name}: {r['docs_per_s_wall']:.1f} docs/s, {r['mb_per_s_wall']:.3g} MB/s "
                     f"({r['docs_per_s_cpu']:.1f} docs/cpu-s)")
    if "ratio_model_regex_vs_presidio" in det:
        ratio = det["ratio_model_regex_vs_presidio"]
        lines.append(f"detection model,regex vs presidio: {ratio['wall']:.1f}x wall, {ratio['cpu']:.1f}x cpu "
                     f"(target >= 10)")
    if "ratio_without_verifier_vs_presidio" in det:
        ratio = det["ratio_without_verifier_vs_presidio"]
        lines.append(f"detection model,regex --no-verify vs presidio: {ratio['wall']:.1f}x wall, "
                     f"{ratio['cpu']:.1f}x cpu")
    return lines


if __name__ == "__main__":
    sys.exit(main())
