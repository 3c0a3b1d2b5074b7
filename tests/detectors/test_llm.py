"""The LLM detector against a local stub server (127.0.0.1, port 0); no real network."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.detectors import DetectorUnavailable, Span, build_detectors
from embedanon.detectors.llm import MARKERS, SYSTEM_PROMPT, LLMDetector, align_entities, parse_reply
from embedanon.detectors.llm_verifier import parse_verdicts
from embedanon.errors import ConfigError
from tests.helpers.llm_stub import Reply, StubLLM, completion


def make(stub: StubLLM, **kwargs) -> LLMDetector:
    options = {"url": stub.url, "model": "stub", "timeout": 2.0, "retries": 2, "backoff": 0.01, **kwargs}
    return LLMDetector(**options)


def texts(text: str, spans: list[Span]) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in spans]


TEXT = "Seen by Dr. Ana Ruiz on 3 May 2021; call 617-555-0134 or mail ana@x.org."


def test_correct_markers_give_exact_offsets():
    reply = ("Seen by Dr. @@@Ana Ruiz### on [[[3 May 2021]]]; call %%%617-555-0134~~~ "
             "or mail QQQana@x.org^^^.")
    with StubLLM([Reply(reply)]) as stub:
        spans = make(stub).detect(TEXT)
        assert texts(TEXT, spans) == [("Ana Ruiz", "NAME"), ("3 May 2021", "DATE"),
                                      ("617-555-0134", "PHONE"), ("ana@x.org", "EMAIL")]
        assert all(s.source == "llm" for s in spans)
        sent = stub.requests[0]
        assert sent["model"] == "stub" and sent["messages"][-1]["content"] == TEXT


@pytest.mark.parametrize("original, reply, expected", [
    # the model fixed typos inside and outside the entity
    ("pateint Jhon Smiht came", "patient @@@John Smith### came", [("Jhon Smiht", "NAME")]),
    # the model collapsed whitespace
    ("Call  Ann   Lee\tnow", "Call @@@Ann Lee### now", [("Ann   Lee", "NAME")]),
    # the model changed the case and dropped a trailing line
    ("MEET ANN LEE AT 5\nbye", "Meet @@@Ann Lee### at 5", [("ANN LEE", "NAME")]),
    # every marker kind, adjacent entities stay separate
    ("AnnLee", "@@@Ann###@@@Lee###", [("Ann", "NAME"), ("Lee", "NAME")]),
    ("ip 10.0.0.1 age 54 id A12B addr 1 Main St url x.io",
     "ip +++10.0.0.1=== age (((54))) id <<<A12B>>> addr {{{1 Main St}}} url &&&x.io$$$",
     [("10.0.0.1", "IP"), ("54", "AGE"), ("A12B", "ID"), ("1 Main St", "ADDRESS"), ("x.io", "URL")]),
])
def test_altered_text_is_aligned_to_the_original(original, reply, expected):
    with StubLLM([Reply(reply)]) as stub:
        assert texts(original, make(stub, min_copy_ratio=0.5).detect(original)) == expected


def test_marked_string_not_in_text_is_dropped_and_moved_string_found_verbatim():
    original = "Ann Lee met Bob Chan."
    # 'Zed Quux' is not in the text; 'Bob Chan' is marked where the model moved it
    reply = "Bob Chan: @@@Zed Quux### Ann Lee met @@@Bob Chan###."
    with StubLLM([Reply(reply)]) as stub:
        detector = make(stub, min_copy_ratio=0.5)
        assert texts(original, detector.detect(original)) == [("Bob Chan", "NAME")]
        assert detector.stats["unaligned"] == 1


@pytest.mark.parametrize("reply, message", [
    (Reply("Seen by Dr. @@@Ana Ruiz on 3 May"), "unclosed"),
    (Reply(body=b"<html>oops</html>"), "not JSON"),
    (Reply(body=b'{"error": "no choices"}'), "not a chat-completions"),
    (Reply(body=b'{"choices": [{"message": {"content": null}}]}'), "no text content"),
    (Reply("Sure! The text mentions a doctor."), "does not copy"),
])
def test_malformed_replies_raise_detector_unavailable(reply, message):
    with StubLLM([reply]) as stub, pytest.raises(DetectorUnavailable, match=message):
        make(stub).detect(TEXT)


def test_timeout_is_bounded_and_retried_then_unavailable():
    with StubLLM([Reply("x", delay=1.5)]) as stub:
        detector = make(stub, timeout=0.2, retries=1)
        began = time.monotonic()
        with pytest.raises(DetectorUnavailable, match=r"gave up after 2 attempts \(last: timeout\)"):
            detector.detect(TEXT)
        assert time.monotonic() - began < 1.4
        assert detector.stats["requests"] == 2


def test_http_500_then_success_is_retried():
    with StubLLM([Reply("error", status=500), Reply("Seen by Dr. @@@Ana Ruiz### on 3 May 2021; call "
                                                    "617-555-0134 or mail ana@x.org.")]) as stub:
        detector = make(stub)
        assert texts(TEXT, detector.detect(TEXT)) == [("Ana Ruiz", "NAME")]
        assert detector.stats == {**detector.stats, "requests": 2, "retries": 1}


def test_http_429_retried_until_attempts_run_out():
    with StubLLM([Reply("slow down", status=429)]) as stub:
        with pytest.raises(DetectorUnavailable, match="gave up after 3 attempts.*HTTP 429"):
            make(stub).detect(TEXT)
        assert len(stub.requests) == 3


def test_http_401_is_not_retried():
    with StubLLM([Reply("denied", status=401)]) as stub:
        with pytest.raises(DetectorUnavailable, match="HTTP 401"):
            make(stub).detect(TEXT)
        assert len(stub.requests) == 1


def test_unreachable_endpoint_is_unavailable():
    with StubLLM([Reply("x")]) as stub:
        url = stub.url
    with pytest.raises(DetectorUnavailable, match="network error"):
        LLMDetector(url=url, model="m", timeout=0.5, retries=1, backoff=0.01).detect(TEXT)


def test_verifier_drops_entities_answered_false():
    detection = "@@@Parkinson###'s disease, seen by @@@Ann Lee###."
    original = "Parkinson's disease, seen by Ann Lee."

    def script(request):
        system = request["messages"][0]["content"]
        if system.startswith("Each numbered candidate"):
            assert "<mark>Parkinson</mark>" in request["messages"][1]["content"]
            return Reply("1: F\n2: T")
        return Reply(detection)

    with StubLLM(script) as stub:
        assert texts(original, make(stub).detect(original)) == [("Parkinson", "NAME"), ("Ann Lee", "NAME")]
        verified = make(stub, verify=True)
        assert texts(original, verified.detect(original)) == [("Ann Lee", "NAME")]
        assert verified.stats["verifier_dropped"] == 1


def test_unparseable_verifier_keeps_every_candidate():
    def script(request):
        if request["messages"][0]["content"].startswith("Each numbered"):
            return Reply("I am not sure.")
        return Reply("@@@Ann Lee### came")

    with StubLLM(script) as stub:
        detector = make(stub, verify=True)
        assert texts("Ann Lee came", detector.detect("Ann Lee came")) == [("Ann Lee", "NAME")]
        assert detector.stats["verifier_failed"] == 1


def test_api_key_read_from_configured_environment_variable(monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "sekret")
    monkeypatch.delenv("EMBEDANON_LLM_API_KEY", raising=False)
    with StubLLM([Reply("Ann came")]) as stub:
        make(stub, api_key_env="MY_LLM_KEY").detect("Ann came")
        make(stub).detect("Ann came")
        assert stub.headers[0].get("Authorization") == "Bearer sekret"
        assert "Authorization" not in stub.headers[1]


def test_text_containing_a_marker_is_refused_without_a_request():
    with StubLLM([Reply("x")]) as stub:
        with pytest.raises(DetectorUnavailable, match="marker string"):
            make(stub).detect("email me @@@ home")
        assert stub.requests == []


def test_long_text_is_chunked_and_offsets_shifted():
    original = " ".join(f"word{i} Ann" for i in range(30))

    def echo(request):
        return Reply(re.sub(r"\bAnn\b", "@@@Ann###", request["messages"][-1]["content"]))

    with StubLLM(echo) as stub:
        spans = make(stub, max_chars=50).detect(original)
        assert len(stub.requests) > 5
        assert texts(original, spans) == [("Ann", "NAME")] * 30


def test_registry_builds_llm_with_prefixed_options():
    with StubLLM([Reply("@@@Ann### came")]) as stub:
        detector = build_detectors("llm", llm_url=stub.url, llm_model="stub", llm_timeout=2.0)
        assert detector.detect("Ann came") == [Span(0, 3, "NAME", 1.0, "llm")]


@pytest.mark.parametrize("kwargs, message", [
    ({"url": "ftp://x", "model": "m"}, "http"),
    ({"url": "http://127.0.0.1:1", "model": " "}, "model"),
    ({"url": "http://127.0.0.1:1", "model": "m", "api_key_env": "not a name"}, "api_key_env"),
    ({"url": "http://127.0.0.1:1", "model": "m", "retries": 11}, "retries"),
    ({"url": "http://127.0.0.1:1", "model": "m", "timeout": 0}, "timeout"),
    ({"url": "http://127.0.0.1:1", "model": "m", "min_copy_ratio": 2}, "min_copy_ratio"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        LLMDetector(**kwargs)


def test_parse_reply_positions():
    clean, entities = parse_reply("a @@@Bo### b QQQx@y.z^^^")
    assert clean == "a Bo b x@y.z"
    assert [(clean[s:e], label) for s, e, label in entities] == [("Bo", "NAME"), ("x@y.z", "EMAIL")]


words = st.text(alphabet="abcdefghij", min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(words, st.sampled_from(list(MARKERS)), st.booleans()), min_size=1, max_size=12))
def test_alignment_recovers_exact_spans_of_a_faithful_copy(items):
    # a faithful copy with markers must map back to exactly the marked words
    original = " ".join(w for w, _, _ in items)
    reply = " ".join(MARKERS[label][0] + w + MARKERS[label][1] if marked else w for w, label, marked in items)
    expected, pos = [], 0
    for w, label, marked in items:
        if marked:
            expected.append((pos, pos + len(w), label))
        pos += len(w) + 1
    clean, entities = parse_reply(reply)
    assert clean == original
    assert align_entities(original, clean, entities, min_copy_ratio=1.0) == expected


# -- the verifier: an echo is no answer (QA 5b D2) ----------------------------------------------
ALARM = "False alarm: Ana Ruiz called again, and 617-555-0134 too."
ALARM_MARKED = "False alarm: @@@Ana Ruiz### called again, and %%%617-555-0134~~~ too."


def verifying(answer: Callable[[str], str]) -> Callable[[dict[str, Any]], Reply]:
    """A stub that marks ALARM's name and phone, and answers the verifier with ``answer(request)``."""
    def script(request: dict[str, Any]) -> Reply:
        if request["messages"][0]["content"].startswith("Each numbered"):
            return Reply(answer(request["messages"][1]["content"]))
        return Reply(ALARM_MARKED)
    return script


@pytest.mark.parametrize("answer", [
    lambda sent: sent,
    lambda sent: sent.replace("<mark>", "").replace("</mark>", ""),
    lambda sent: "1. False alarm: Ana Ruiz\n2. False alarm: Ana Ruiz called",
    lambda sent: "1: F (False alarm: Ana Ruiz called again)\n2: F (called again, and 617-555-0134 too.)",
], ids=["echo", "echo-without-tags", "echo-cut-short", "verdicts-carrying-context"])
def test_verifier_echoing_the_candidates_keeps_every_candidate(answer):
    """QA 5b D2: "1. False alarm: ..." read as the verdict F, so an echoing verifier dropped both."""
    with StubLLM(verifying(answer)) as stub:
        detector = make(stub, verify=True)
        assert texts(ALARM, detector.detect(ALARM)) == [("Ana Ruiz", "NAME"), ("617-555-0134", "PHONE")]
        assert detector.stats["verifier_failed"] == 1 and detector.stats["verifier_dropped"] == 0


@pytest.mark.parametrize("answer", ["1) False\n2) True", "1 - **F**\n2 - **T**", "1: FALSE\n2: true", "1. F\n2. T"])
def test_verifier_spellings_still_read_when_the_context_starts_with_false(answer):
    with StubLLM(verifying(lambda sent: answer)) as stub:
        detector = make(stub, verify=True)
        assert texts(ALARM, detector.detect(ALARM)) == [("617-555-0134", "PHONE")]
        assert detector.stats["verifier_dropped"] == 1 and detector.stats["verifier_failed"] == 0


@pytest.mark.parametrize("reply, expected", [
    ("1: F\n2: T", {1: "F", 2: "T"}),
    ("1) False\n2 - **true**\n7: F", {1: "F", 2: "T", 7: "F"}),
    ("1: F - a name in a false alarm\n2: T", {1: "F", 2: "T"}),  # an explanation is no echo
    ("Sure.\n\n1: F", {1: "F"}),
    ("I cannot tell.", {}),
    ("1. False alarm: Ana Ruiz called again\n2: T", None),  # the candidate's line, echoed
    ("1: F\n2. T Bo", None),  # "T Bo" is all of candidate 2's line
    ("1: F <mark>Ana Ruiz</mark>", None),
    ("1: T, called again\n2: F", None),  # candidate 1's line carries its right context
    ("1: T\n2: F, called again", {1: "T", 2: "F"}),  # candidate 1's context, on candidate 2's line
])
def test_parse_verdicts(reply, expected):
    candidates = [("False alarm: ", "Ana Ruiz", " called again"), ("T ", "Bo", "")]
    assert parse_verdicts(reply, candidates) == expected


# -- a reply longer than any copy (QA 5b D3) ----------------------------------------------------
@pytest.mark.parametrize("reply, message", [
    (Reply(TEXT * 20), "much longer than the text sent"),
    (Reply(TEXT + " " + "x" * 5000), "much longer than the text sent"),
], ids=["text-repeated", "text-and-filler"])
def test_reply_much_longer_than_the_text_is_unavailable(reply, message):
    """QA 5b D3: such a reply covers all of the text, so it passed min_copy_ratio with 0 entities."""
    with StubLLM([reply]) as stub, pytest.raises(DetectorUnavailable, match=message):
        make(stub).detect(TEXT)


def test_reply_repeating_the_instructions_is_unavailable():
    """The prompt echoed before a long text stays under the length bound; the echo is refused."""
    original = " ".join([TEXT] * 40)
    with StubLLM([Reply(SYSTEM_PROMPT + "\n" + original)]) as stub, \
            pytest.raises(DetectorUnavailable, match="repeats the instructions"):
        make(stub).detect(original)


def test_preamble_and_a_text_quoting_the_prompts_example_are_accepted():
    original = "Example input: Seen by Dr. Ana Ruiz on 3 May 2021, call 617-555-0134 or ana@x.org."
    reply = ("Here is the text with the markers added:\n\nExample input: Seen by Dr. @@@Ana Ruiz### on "
             "[[[3 May 2021]]], call %%%617-555-0134~~~ or QQQana@x.org^^^.")
    with StubLLM([Reply(reply)]) as stub:
        assert texts(original, make(stub).detect(original)) == [
            ("Ana Ruiz", "NAME"), ("3 May 2021", "DATE"), ("617-555-0134", "PHONE"), ("ana@x.org", "EMAIL")]


# -- a key pasted as the variable name (QA 5b D5) ------------------------------------------------
def test_api_key_env_that_is_no_name_is_not_quoted():
    """QA 5b D5: a key pasted into --llm-api-key-env was printed back."""
    with pytest.raises(ConfigError, match="EMBEDANON_LLM_API_KEY") as info:
        LLMDetector(url="http://127.0.0.1:1", model="m", api_key_env="sk-SECRETKEY123")
    assert "SECRETKEY123" not in str(info.value)
    with pytest.raises(TypeError, match="api_key_env must be a str"):
        LLMDetector(url="http://127.0.0.1:1", model="m", api_key_env=123)


# -- broken HTTP, URLs, keys (QA 5b D4) ----------------------------------------------------------
@pytest.mark.parametrize("raw, kind", [
    (b"GARBAGE sk-LEAK\r\n\r\n", "BadStatusLine"),
    (b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"LEAK": ', "IncompleteRead"),
    (b"HTTP/1.1 200 OK\r\nX-LEAK: " + b"a" * 70000 + b"\r\n\r\n", "LineTooLong"),
])
def test_broken_http_is_retried_then_unavailable_without_server_bytes(raw, kind):
    """QA 5b D4: http.client's errors escaped as tracebacks quoting the server's bytes."""
    with StubLLM([Reply(raw=raw)]) as stub:
        with pytest.raises(DetectorUnavailable) as info:
            make(stub).detect(TEXT)
        assert str(info.value) == f"llm: gave up after 3 attempts (last: network error ({kind}))"
        assert len(stub.requests) == 3


def test_redirect_is_not_followed():
    """urllib followed a 302 (as a GET, Authorization kept) to any address, even one http.client
    cannot parse (InvalidURL, quoting the port)."""
    moved = Reply("moved", status=302, headers=(("Location", "http://127.0.0.1:sk-LEAK/v1"),))
    with StubLLM([moved]) as stub:
        with pytest.raises(DetectorUnavailable) as info:
            make(stub).detect(TEXT)
        assert str(info.value) == "llm: request failed (HTTP 302)"
        assert len(stub.requests) == 1


def test_invalid_url_at_request_time_is_a_network_error():
    with StubLLM([Reply("x")]) as stub:
        detector = make(stub, retries=1)
        detector.url = "http://127.0.0.1:sk-LEAK/v1/chat/completions"  # past the constructor's check
        with pytest.raises(DetectorUnavailable) as info:
            detector.detect(TEXT)
        assert str(info.value) == "llm: gave up after 2 attempts (last: network error (InvalidURL))"


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:sk-SECRET/v1", "http://127.0.0.1:99999/v1", "http://127.0.0.1:0/v1",
    "http://user:sk-SECRET@127.0.0.1:8000/v1", "http://[::1/v1", "http://127.0.0.1:8000/v1 sk-SECRET",
    "http://127.0.0.1:8000/v\u00e9", "http://:8000/v1",
])
def test_url_refused_at_configuration_without_quoting_it(url):
    """QA 5b D4: a port that is no number passed, then failed on every record (InvalidURL)."""
    with pytest.raises(ConfigError, match="llm url") as info:
        LLMDetector(url=url, model="m")
    assert "SECRET" not in str(info.value) and len(str(info.value).splitlines()) == 1


def test_api_key_no_header_can_carry_is_refused_unquoted(monkeypatch):
    """A non-ASCII key made http.client raise UnicodeEncodeError (a traceback) on every request."""
    monkeypatch.setenv("MY_LLM_KEY", "sk-SECRET\u2019")
    with StubLLM([Reply("Ann came")]) as stub:
        with pytest.raises(ConfigError, match=r"\$MY_LLM_KEY must be printable ASCII") as info:
            make(stub, api_key_env="MY_LLM_KEY")
        assert "SECRET" not in str(info.value)
        monkeypatch.setenv("MY_LLM_KEY", "fine")
        detector = make(stub, api_key_env="MY_LLM_KEY")
        monkeypatch.setenv("MY_LLM_KEY", "sk-SECRET\u2019")
        with pytest.raises(DetectorUnavailable, match="printable ASCII"):
            detector.detect(TEXT)
        assert stub.requests == []


# -- a deadline for the whole exchange, a cap on the reply (QA 5b D6) ---------------------------
@pytest.mark.parametrize("reply", [
    Reply(TEXT, drip=0.05),
    Reply(raw=b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + completion(TEXT), drip=0.05),
], ids=["body", "status-line-and-headers"])
def test_a_dripping_server_is_cut_at_the_deadline(reply):
    """QA 5b D6: the timeout bounded each socket read, so one byte every 50 ms never tripped it
    (here the whole reply would take about 10 s)."""
    with StubLLM([reply]) as stub:
        detector = make(stub, timeout=0.5, retries=0)
        began = time.monotonic()
        with pytest.raises(DetectorUnavailable, match=r"gave up after 1 attempts \(last: timeout\)"):
            detector.detect(TEXT)
        assert time.monotonic() - began < 1.5


BIG = json.dumps({"choices": [{"message": {"content": TEXT}}], "padding": "x" * 2_000_000}).encode()


@pytest.mark.parametrize("reply", [
    Reply(body=BIG), Reply(raw=b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + BIG),
], ids=["content-length", "read-until-close"])
def test_oversized_reply_is_refused_without_retry(reply):
    """A 2 MB reply to a 72-character text (the cap here is about 290 KB) is not read to the end."""
    with StubLLM([reply]) as stub:
        with pytest.raises(DetectorUnavailable, match=r"request failed \(reply larger than \d+ bytes\)"):
            make(stub).detect(TEXT)
        assert len(stub.requests) == 1


def test_a_dead_endpoint_opens_the_breaker_after_two_records():
    """Audit defect 6: a dead endpoint cost 4 attempts of 61 s on every record. The first
    record spends its retries, the second one attempt, the rest none until the cool-down ends;
    a live endpoint after the cool-down closes the breaker again."""
    with StubLLM([Reply("down", status=503)]) as stub:
        detector = make(stub, retries=3, breaker=2, cooldown=60.0)
        for n in range(5):
            with pytest.raises(DetectorUnavailable):
                detector.detect(TEXT)
            assert len(stub.requests) == [4, 5, 5, 5, 5][n]
        assert detector.stats["skipped"] == 3
        detector._open_until = 0.0  # the cool-down is over: one probe, no retries
        with pytest.raises(DetectorUnavailable, match=r"gave up after 1 attempts"):
            detector.detect(TEXT)
        assert len(stub.requests) == 6
    good = "Seen by Dr. @@@Ana Ruiz### on 3 May 2021; call 617-555-0134 or mail ana@x.org."
    with StubLLM([Reply("down", status=503), Reply(good)]) as stub:
        detector = make(stub, retries=3, breaker=2)
        assert texts(TEXT, detector.detect(TEXT)) == [("Ana Ruiz", "NAME")]  # a retry succeeded
        assert detector._failures == 0


def test_breaker_options_are_validated():
    with StubLLM([Reply("x")]) as stub:
        with pytest.raises(ConfigError, match="breaker"):
            make(stub, breaker=0)
        with pytest.raises(ConfigError, match="cooldown"):
            make(stub, cooldown=-1.0)


def test_plain_http_to_another_machine_is_warned_about_once(caplog: pytest.LogCaptureFixture,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Security audit: ``--llm-url http://192.0.2.10:8000/v1`` sent the original notes and the
    API key over plain http without a word. Plain http to another machine is warned about once a
    process; https, and http to this machine (a local server), are not."""
    from embedanon.detectors import endpoint

    monkeypatch.setattr(endpoint, "_WARNED", set())
    with caplog.at_level("WARNING", logger="embedanon.detectors.endpoint"):
        for url in ("https://api.example.org/v1", "http://127.0.0.1:8000/v1", "http://[::1]:8000/v1",
                    "http://localhost:8000/v1"):
            endpoint.check_url("llm url", url)
        assert not caplog.records
        endpoint.check_url("llm url", "http://192.0.2.10:8000/v1")
        endpoint.check_url("llm url", "http://192.0.2.11:8000/v1")
    assert len(caplog.records) == 1 and "unencrypted" in caplog.records[0].getMessage()
    assert "192.0.2" not in caplog.records[0].getMessage()  # the URL is never shown
