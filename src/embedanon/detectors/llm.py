"""``llm``: PII detection by any OpenAI-compatible chat-completions endpoint, with inline markers.

The model is asked to copy the text and wrap each entity in markers (Ji et al., JEDM 2025:
``@@@name###``, ``&&&url$$$``, ``QQQemail^^^``, ``%%%phone~~~``; extended here with
``<<<id>>>``, ``[[[date]]]``, ``{{{address}}}``, ``(((age)))``, ``+++ip===``). The reply is never
trusted for offsets: markers are removed, the cleaned reply is aligned with the original by
:class:`difflib.SequenceMatcher`, and each entity is mapped through the matching blocks. A mapped
span must resemble the marked string (similarity >= 0.6, case-folded); otherwise the string is
searched verbatim (case-insensitive; the occurrence nearest the expected place wins), and a
string that is not in the text at all is dropped (nothing there to protect).

A document is **never silently unprotected**: :class:`~.base.DetectorUnavailable` is raised when
the endpoint fails after bounded retries (HTTP 429/5xx, network and protocol errors and timeouts
are retried with exponential backoff; other HTTP errors, redirects and oversized replies are not;
see :mod:`.endpoint` for the whole-exchange deadline and the size cap), when the reply is not
chat-completions JSON, has an unclosed marker, copies less than ``min_copy_ratio`` of the text
(entities in the missing part would be lost), is much longer than the text (1.5 times plus 200
characters once markers are removed: no copy is) or repeats the instructions, and when the text
itself contains an opening marker (ambiguous). The caller then falls back to full scope for that
record. Messages give counts and reasons, never the text, the reply, the URL or the key.

The optional verifier (``verify=True``) sends one more request listing the candidates, each in
its context, and drops those answered ``F``. A verifier that fails, answers nothing parseable or
echoes the request (see :func:`parse_verdicts`) keeps every candidate (it can only buy precision,
never cost recall).

Long texts are sent in chunks of at most ``max_chars`` characters, cut at whitespace.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import time
from collections.abc import Callable
from typing import Any, Final

from .._validate import fraction, positive_float, positive_int
from ..errors import ConfigError
from .base import DetectorUnavailable, Span
from .endpoint import RequestFailed, check_url, post
from .llm_verifier import VERIFIER_PROMPT, candidates, normalized, parse_verdicts, request

#: label -> (opening marker, closing marker)
MARKERS: Final[dict[str, tuple[str, str]]] = {
    "NAME": ("@@@", "###"), "URL": ("&&&", "$$$"), "EMAIL": ("QQQ", "^^^"), "PHONE": ("%%%", "~~~"),
    "ID": ("<<<", ">>>"), "DATE": ("[[[", "]]]"), "ADDRESS": ("{{{", "}}}"), "AGE": ("(((", ")))"),
    "IP": ("+++", "==="),
}
_PAIRED = re.compile("|".join(f"{re.escape(o)}(?P<{label}>[^\\n]+?){re.escape(c)}"
                              for label, (o, c) in MARKERS.items()))
_OPENERS = re.compile("|".join(re.escape(o) for o, _ in MARKERS.values()))
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEFAULT_KEY_ENV: Final = "EMBEDANON_LLM_API_KEY"

SYSTEM_PROMPT: Final = (
    "You find personal information in text. Copy the user's text exactly, character for character, "
    "and wrap every piece of personal information in markers: names of people @@@like this###, "
    "URLs &&&like this$$$, e-mail addresses QQQlike this^^^, phone numbers %%%like this~~~, "
    "ID numbers and codes <<<like this>>>, dates [[[like this]]], street addresses and places "
    "{{{like this}}}, ages (((like this))), IP addresses +++like this===. Do not mark famous "
    "people, diseases or methods named after people, drugs or institutions. Output only the copied "
    "text with markers, nothing else.\n"
    "Example input: Seen by Dr. Ana Ruiz on 3 May 2021, call 617-555-0134 or ana@x.org.\n"
    "Example output: Seen by Dr. @@@Ana Ruiz### on [[[3 May 2021]]], call %%%617-555-0134~~~ "
    "or QQQana@x.org^^^."
)

# A faithful copy is as long as the text, give or take fixed typos and whitespace; a short preamble
# ("Here is the text:") adds a few dozen characters. A cleaned reply over 1.5 times the text plus
# 200 characters is no copy: the text repeated, the prompt echoed, a runaway generation. Any text
# past the copy aligns nowhere, so it would pass the copy check while hiding that nothing was marked.
_MAX_GROWTH: Final = 1.5
_MAX_EXTRA_CHARS: Final = 200
# Bytes of reply accepted per character sent (JSON escapes a non-BMP character in 12 bytes), plus
# room for the completion envelope and any reasoning text a server adds beside the content.
_REPLY_BYTES_PER_CHAR: Final = 32
_REPLY_BYTES_EXTRA: Final = 256 * 1024


def _chunks(text: str, max_chars: int) -> list[tuple[int, str]]:
    out, start = [], 0
    while len(text) - start > max_chars:
        cut = max(text.rfind(" ", start, start + max_chars), text.rfind("\n", start, start + max_chars))
        cut = cut + 1 if cut > start else start + max_chars
        out.append((start, text[start:cut]))
        start = cut
    out.append((start, text[start:]))
    return out


def parse_reply(reply: str) -> tuple[str, list[tuple[int, int, str]]]:
    """Remove the markers from a reply: the clean text and (start, end, label) of each entity in it.

    Raises:
        DetectorUnavailable: an opening marker has no closing one.
    """
    clean: list[str] = []
    entities: list[tuple[int, int, str]] = []
    pos = length = 0
    for match in _PAIRED.finditer(reply):
        label = match.lastgroup
        assert label is not None
        clean.append(reply[pos:match.start()])
        length += match.start() - pos
        value = match.group(label)
        entities.append((length, length + len(value), label))
        clean.append(value)
        length += len(value)
        pos = match.end()
    clean.append(reply[pos:])
    text = "".join(clean)
    if _OPENERS.search(text):
        raise DetectorUnavailable("llm: reply has an unclosed or nested marker")
    return text, entities


# the instruction sentences, markers removed (a reply is compared once its markers are removed)
_INSTRUCTIONS: Final = tuple(s for s in map(normalized, re.split(r"(?<=[.:])\s+|\n",
                                                                  parse_reply(SYSTEM_PROMPT)[0]))
                             if len(s) >= 30)


def _repeats_instructions(clean: str, chunk: str) -> bool:
    """Whether the cleaned reply contains a sentence of the system prompt that the text does not."""
    reply, text = normalized(clean), normalized(chunk)
    return any(s in reply and s not in text for s in _INSTRUCTIONS)


def _fold(text: str) -> str:
    """Lower case, one character for one (so offsets survive), for case-blind alignment."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _widen(original: str, aligned: bytearray, start: int, end: int) -> tuple[int, int]:
    """Extend a span over unaligned word characters that continue its first or last word.

    A typo the model fixed ("Smiht" -> "Smith") leaves original characters out of every matching
    block; they belong to the entity. Aligned neighbors ("AnnLee" marked as two names) do not.
    """
    text = original
    while end < len(text) and not aligned[end] and text[end].isalnum() and text[end - 1].isalnum():
        end += 1
    while start > 0 and not aligned[start - 1] and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    return start, end


def _similar(a: str, b: str) -> bool:
    return difflib.SequenceMatcher(None, a.casefold(), b.casefold(), autojunk=False).ratio() >= 0.6


def _nearest(original: str, value: str, near: int) -> tuple[int, int] | None:
    value = value.strip()
    hits = [m.start() for m in re.finditer(re.escape(value), original, re.IGNORECASE)] if value else []
    if not hits:
        return None
    start = min(hits, key=lambda h: abs(h - near))
    return start, start + len(value)


def align_entities(original: str, clean: str, entities: list[tuple[int, int, str]],
                   *, min_copy_ratio: float = 0.0) -> list[tuple[int, int, str]]:
    """Map entities of the cleaned reply onto offsets of ``original`` (see the module docstring).

    Raises:
        DetectorUnavailable: the matching blocks cover less than ``min_copy_ratio`` of ``original``.
    """
    matcher = difflib.SequenceMatcher(None, _fold(original), _fold(clean), autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if original and sum(b.size for b in blocks) / len(original) < min_copy_ratio:
        raise DetectorUnavailable("llm: reply does not copy the text (too little of it aligns)")
    aligned = bytearray(len(original))
    for b in blocks:
        aligned[b.a:b.a + b.size] = b"\x01" * b.size
    out = []
    for cs, ce, label in entities:
        value = clean[cs:ce]
        inside = [b for b in blocks if b.b < ce and cs < b.b + b.size]
        span: tuple[int, int] | None = None
        if inside:
            # first and last aligned characters, then extrapolate the unaligned ends by length
            c0 = max(cs, inside[0].b)
            c1 = min(ce, inside[-1].b + inside[-1].size) - 1
            start = max(0, inside[0].a + c0 - inside[0].b - (c0 - cs))
            end = min(len(original), inside[-1].a + c1 - inside[-1].b + 1 + (ce - 1 - c1))
            near = start
            if start < end and _similar(original[start:end].strip(), value.strip()):
                span = (start, end)
        else:
            before = [b for b in blocks if b.b + b.size <= cs]
            near = before[-1].a + cs - before[-1].b if before else 0
        span = _widen(original, aligned, *span) if span is not None else _nearest(original, value, near)
        if span is not None:
            start, end = span
            while start < end and original[start].isspace():
                start += 1
            while end > start and original[end - 1].isspace():
                end -= 1
            if start < end:
                out.append((start, end, label))
    return out


class LLMDetector:
    """Detector calling an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        url: endpoint, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended when
            missing). Required (None: a ConfigError naming ``--llm-url``).
        model: model name sent in the request. Required (None: a ConfigError naming ``--llm-model``).
        api_key_env: environment variable holding the API key (unset: no Authorization header).
        timeout: seconds for one whole HTTP exchange (connect, send, wait, read the reply), per attempt.
        retries: extra attempts after a retryable failure (429, 5xx, network error, timeout).
        backoff: seconds before the first retry; doubled each time, at most 30 s.
        verify: run the verifier pass and drop the candidates it answers ``F``.
        max_chars: longest text sent in one request (longer texts are chunked at whitespace).
        min_copy_ratio: least fraction of the text the reply must reproduce.
        breaker: consecutive failed exchanges (retries spent on timeouts, network errors, 429
            or 5xx) after which the endpoint is taken for down: further records fail at once,
            without a request (they fall back to full scope as any failure does), for
            ``cooldown`` seconds, then one request probes it again. After the first such
            failure, a request gets no retries. A dead endpoint cost about 247 s per record with
            the defaults (4 attempts of 61 s); now it costs that once, then 61 s, then nothing
            (audit defect 6).
        cooldown: seconds the breaker stays open before one probe.
    """

    name = "llm"

    def __init__(self, *, url: str | None = None, model: str | None = None,
                 api_key_env: str = DEFAULT_KEY_ENV, timeout: float = 60.0, retries: int = 3,
                 backoff: float = 1.0, verify: bool = False, max_chars: int = 6000,
                 min_copy_ratio: float = 0.9, breaker: int = 2, cooldown: float = 300.0) -> None:
        # url and model have no useful default; None (rather than a required argument) lets a
        # missing one end in a ConfigError naming the options, not a TypeError from Python.
        missing = [f"--llm-{n}" for n, v in (("url", url), ("model", model)) if v is None]
        if missing:
            raise ConfigError(f"the llm detector needs {' and '.join(missing)} "
                              "(llm_url / llm_model in the Python API)")
        url = check_url("llm url", url)
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("llm model must be a non-empty string")
        if not isinstance(api_key_env, str):
            raise TypeError(f"llm api_key_env must be a str, got {type(api_key_env).__name__}")
        if not _ENV_NAME.fullmatch(api_key_env):
            # never quoted: an API key pasted here by mistake must not reach a log
            raise ConfigError("llm api_key_env must be the name of an environment variable (ASCII letters, "
                              "digits and _, not starting with a digit, e.g. EMBEDANON_LLM_API_KEY); "
                              "the value given is not one (not shown, in case it is the key itself)")
        _api_key(api_key_env, ConfigError)
        if not isinstance(verify, bool):
            raise TypeError(f"verify must be a bool, got {type(verify).__name__}")
        base = url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = positive_float("timeout", timeout)
        if isinstance(retries, bool) or not isinstance(retries, int):
            raise TypeError(f"retries must be an integer, got {type(retries).__name__}")
        if not 0 <= retries <= 10:
            raise ConfigError(f"retries must be an integer in [0, 10], got {retries}")
        self.retries = retries
        self.backoff = positive_float("backoff", backoff)
        self.verify = verify
        self.max_chars = positive_int("max_chars", max_chars)
        self.min_copy_ratio = fraction("min_copy_ratio", min_copy_ratio)
        self.breaker = positive_int("breaker", breaker)
        self.cooldown = positive_float("cooldown", cooldown)
        self._failures = 0  # consecutive exchanges that failed for want of an endpoint
        self._open_until = 0.0
        self.stats: dict[str, int] = {"requests": 0, "retries": 0, "unaligned": 0, "verifier_dropped": 0,
                                      "verifier_failed": 0, "skipped": 0}
        self._sleep: Callable[[float], None] = time.sleep

    def _complete(self, messages: list[dict[str, str]]) -> str:
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0}).encode()
        headers = {"Content-Type": "application/json"}
        key = _api_key(self.api_key_env, DetectorUnavailable)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        max_bytes = _REPLY_BYTES_EXTRA + _REPLY_BYTES_PER_CHAR * sum(len(m["content"]) for m in messages)
        reason = "no attempt"
        if self._failures >= self.breaker and time.monotonic() < self._open_until:
            self.stats["skipped"] += 1
            raise DetectorUnavailable(f"llm: endpoint taken for down after {self._failures} failed "
                                      "exchanges; not asked again for a while")
        attempts = 1 if self._failures else self.retries + 1  # a second failure in a row: no retries
        for attempt in range(attempts):
            if attempt:
                self.stats["retries"] += 1
                self._sleep(min(30.0, self.backoff * 2 ** (attempt - 1)))
            self.stats["requests"] += 1
            try:
                raw = post(self.url, body, headers, timeout=self.timeout, max_bytes=max_bytes)
            except RequestFailed as exc:
                reason = exc.reason
                if not exc.retry:
                    raise DetectorUnavailable(f"llm: request failed ({reason})") from None
                continue
            self._failures = 0  # the endpoint answered
            try:
                payload = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise DetectorUnavailable("llm: reply is not JSON") from None
            return _content(payload)
        self._failures += 1
        if self._failures >= self.breaker:
            self._open_until = time.monotonic() + self.cooldown
        raise DetectorUnavailable(f"llm: gave up after {attempts} attempts (last: {reason})")

    def _detect_chunk(self, chunk: str) -> list[tuple[int, int, str]]:
        if _OPENERS.search(chunk):
            raise DetectorUnavailable("llm: the text contains a marker string; cannot mark it unambiguously")
        reply = self._complete([{"role": "system", "content": SYSTEM_PROMPT},
                                {"role": "user", "content": chunk}])
        clean, entities = parse_reply(reply)
        if len(clean) > _MAX_GROWTH * len(chunk) + _MAX_EXTRA_CHARS:
            raise DetectorUnavailable(f"llm: reply is much longer than the text sent "
                                      f"({len(clean)} characters for {len(chunk)})")
        if _repeats_instructions(clean, chunk):
            raise DetectorUnavailable("llm: reply repeats the instructions")
        aligned = align_entities(chunk, clean, entities, min_copy_ratio=self.min_copy_ratio)
        self.stats["unaligned"] += len(entities) - len(aligned)
        return aligned

    def _verified(self, text: str, spans: list[Span]) -> list[Span]:
        listed = candidates(text, spans)
        try:
            reply = self._complete([{"role": "system", "content": VERIFIER_PROMPT},
                                    {"role": "user", "content": request(listed)}])
        except DetectorUnavailable:
            self.stats["verifier_failed"] += 1
            return spans
        verdicts = parse_verdicts(reply, listed)
        if not verdicts:  # an echo (None) or nothing parseable
            self.stats["verifier_failed"] += 1
            return spans
        kept = [s for i, s in enumerate(spans, 1) if verdicts.get(i, "T") != "F"]
        self.stats["verifier_dropped"] += len(spans) - len(kept)
        return kept

    def detect(self, text: str) -> list[Span]:
        """Spans the model marked, mapped onto ``text`` (raises DetectorUnavailable on failure)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not text.strip():
            return []
        spans = sorted({Span(offset + s, offset + e, label, 1.0, self.name)
                        for offset, chunk in _chunks(text, self.max_chars)
                        for s, e, label in self._detect_chunk(chunk)}, key=lambda s: (s.start, s.end))
        if self.verify and spans:
            spans = self._verified(text, spans)
        return spans


def _api_key(name: str, error: type[Exception]) -> str | None:
    """The key in environment variable ``name`` (None when unset or empty), checked: an HTTP header
    carries printable ASCII only."""
    key = os.environ.get(name) or None
    if key is not None and not (key.isascii() and key.isprintable()):
        raise error(f"llm: the API key in ${name} must be printable ASCII (it is not shown)")
    return key


def _content(payload: Any) -> str:
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise DetectorUnavailable("llm: reply is not a chat-completions object") from None
    if not isinstance(content, str):
        raise DetectorUnavailable("llm: reply has no text content")
    return content
