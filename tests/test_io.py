"""Readers and writers of txt / jsonl / csv: what is refused (never quoting the input) and a
hypothesis round trip of every field that is not anonymized."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedanon import files
from embedanon import io as eio
from embedanon.errors import InputError

CANARY = "Zebulonius"


def _jsonl(data: bytes, fields: tuple[str, ...] = ("text",), errors: str = "strict") -> list[eio.Record]:
    return list(eio.read_jsonl(io.BytesIO(data), "in.jsonl", errors, list(fields)))


def _csv(data: bytes, fields: tuple[str, ...] = ("text",)) -> list[eio.Record]:
    return list(eio.read_csv(io.BufferedReader(io.BytesIO(data)), "in.csv", "strict", list(fields)))  # type: ignore[arg-type]


def _refused(call, match: str) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert match in message, message
    assert len(message.splitlines()) == 1 and CANARY.lower() not in message.lower()
    return message


# -- txt ----------------------------------------------------------------------------------------
def test_txt_keeps_line_endings() -> None:
    records = list(eio.read_txt(io.BytesIO(b"a\r\nb\n\nc"), "x", "strict"))
    assert [r.texts for r in records] == [("a",), ("b",), ("",), ("c",)]
    assert "".join(eio.write_txt(r, r.texts) for r in records) == "a\r\nb\n\nc"


def test_txt_a_bare_carriage_return_ends_a_line() -> None:
    """A text file with old Mac line endings (CR alone) was read as one record: a 48 MB file one
    text, 3.4 GB of memory, 'anonymized 1 record', and each line released unlike the same line
    of an LF file (found by the second CLI audit, by hand). CR, LF and CRLF each end a line, as
    the CSV reader and Python's universal newlines have them (decision 0631)."""
    data = b"John Smith\rMary Jones\r\nthird\n\rfifth\r\r\nlast\r"
    records = list(eio.read_txt(io.BytesIO(data), "x", "strict"))
    assert [r.texts[0] for r in records] == ["John Smith", "Mary Jones", "third", "", "fifth", "", "last"]
    assert "".join(eio.write_txt(r, r.texts) for r in records).encode() == data
    message = _refused(lambda: list(eio.read_txt(io.BytesIO(b"one\rtwo\r\xff three\n"), "x", "strict")),
                       "not valid UTF-8")
    assert message.startswith("x: line 3 ")
    with_mark = list(eio.read_txt(io.BytesIO(b"\xef\xbb\xbfJohn Smith\rsecond\r"), "x", "strict"))
    assert [r.texts[0] for r in with_mark] == ["John Smith", "second"]
    jsonl = b'{"text": "a"}\r{"text": "b"}\r'  # JSON Lines with CR endings is still sniffed as such
    _refused(lambda: list(eio.read_txt(io.BytesIO(jsonl), "x", "strict")), "looks like JSON Lines")


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_txt_byte_order_mark_is_no_part_of_the_text_and_is_kept_in_the_output(ending: bytes) -> None:
    """QA 5A: the BOM of a .txt file was part of record 1's text, so that record was released
    unlike the same line without it (and unlike its JSONL or CSV export). Only the first line's
    is a byte-order mark; the output keeps it at its start, like the JSONL and CSV writers."""
    data = b"\xef\xbb\xbfJohn Smith" + ending + b"\xef\xbb\xbfsecond" + ending
    records = list(eio.read_txt(io.BytesIO(data), "x", "strict"))
    plain = list(eio.read_txt(io.BytesIO(data[3:]), "x", "strict"))
    assert [r.texts for r in records] == [r.texts for r in plain] == [("John Smith",), ("\ufeffsecond",)]
    assert "".join(eio.write_txt(r, r.texts) for r in records).encode() == data
    assert "".join(eio.write_txt(r, r.texts) for r in plain).encode() == data[3:]
    for last in (ending, b""):  # a file of a BOM alone, with or without a line ending
        alone = list(eio.read_txt(io.BytesIO(b"\xef\xbb\xbf" + last), "x", "strict"))
        assert [r.texts for r in alone] == [("",)] and eio.write_txt(alone[0], ("",)) == "\ufeff" + last.decode()


def test_txt_that_is_really_jsonl_is_refused_unless_asked_for() -> None:
    data = f'{{"text": "{CANARY}"}}\n\n{{"id": 2}}\n'.encode()
    _refused(lambda: list(eio.read_txt(io.BytesIO(data), "<stdin>", "strict")), "looks like JSON Lines")
    assert len(list(eio.read_txt(io.BytesIO(data), "<stdin>", "strict", sniff=False))) == 3


@pytest.mark.parametrize("data", [b"{not json}\n{x}\n", b'{"a": 1}\nplain text\n', b"[1, 2]\n", b""])
def test_txt_sniffing_negative_controls(data: bytes) -> None:
    assert len(list(eio.read_txt(io.BytesIO(data), "x", "strict"))) == data.count(b"\n")


def test_txt_after_the_sniffed_head_continues_unchanged() -> None:
    data = b"".join(b"line %d\n" % i for i in range(5000))
    records = list(eio.read_txt(io.BytesIO(data), "x", "strict"))
    assert len(records) == 5000 and records[4999].texts == ("line 4999",)


class _FailingStream(io.RawIOBase):
    """Yields some lines, then an I/O error (a failing disk)."""

    def __init__(self) -> None:
        self._lines: Iterator[bytes] = iter([b'{"text": "a"}\n', b'{"text": "b"}\n'])

    def readable(self) -> bool:
        return True

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._lines)
        except StopIteration:
            raise OSError(errno.EIO, os.strerror(errno.EIO)) from None


@pytest.mark.parametrize("reader", ["txt", "jsonl"])
def test_read_errors_are_one_line(reader: str) -> None:
    def run() -> list[eio.Record]:
        if reader == "txt":
            return list(eio.read_txt(_FailingStream(), "in", "strict", sniff=False))  # type: ignore[arg-type]
        return list(eio.read_jsonl(_FailingStream(), "in", "strict", ["text"]))  # type: ignore[arg-type]

    _refused(run, "cannot read in: Input/output error")


# -- file (decision 0195) -----------------------------------------------------------------------
def test_file_is_one_record_with_its_line_endings_and_a_byte_order_mark_outside() -> None:
    data = "\ufeffWEBVTT\r\n\r\n1\r\n00:00:01.000 --> 00:00:02.000\r\nDoctor: Hi.\r\n".encode()
    records = list(eio.read_file(io.BytesIO(data), "call.vtt", "strict"))
    assert [r.texts for r in records] == [("WEBVTT\r\n\r\n1\r\n00:00:01.000 --> 00:00:02.000\r\nDoctor: Hi.\r\n",)]
    assert records[0].nbytes == len(data)
    assert "".join(eio.write_file(r, r.texts) for r in records).encode() == data
    assert list(eio.read_file(io.BytesIO(b""), "empty.vtt", "strict")) == []


def test_file_utf8_error_names_its_line_and_byte() -> None:
    data = f"WEBVTT\n\n{CANARY}: caf\xe9 \xff\n".encode("latin-1")
    _refused(lambda: list(eio.read_file(io.BytesIO(data), "call.vtt", "strict")),
             "call.vtt: line 3 is not valid UTF-8 (byte 16)")
    assert list(eio.read_file(io.BytesIO(data), "x", "replace"))[0].texts[0].endswith("caf\ufffd \ufffd\n")


def test_file_read_errors_are_one_line() -> None:
    class Failing(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    _refused(lambda: list(eio.read_file(Failing(), "in", "strict")), "cannot read in: Input/output error")  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "form"), [("call.vtt", "file"), ("CALL.SRT", "file"), ("call.vtt.gz", "file"),
                                            ("call.txt", "txt"), ("vtt", "txt")])
def test_caption_files_are_read_whole(name: str, form: str) -> None:
    assert eio.detect_format(name) == form
    assert eio.detect_format(name, "txt") == "txt" and eio.detect_format("x.txt", "file") == "file"


# -- jsonl --------------------------------------------------------------------------------------
def test_duplicate_named_field_is_ambiguous() -> None:
    _refused(lambda: _jsonl(f'{{"text": "a", "text": "{CANARY}"}}\n'.encode()),
             "line 1: field 'text' appears twice")


def test_duplicate_other_key_is_refused_without_naming_it() -> None:
    data = f'{{"text": "a", "meta": {{"{CANARY}": 1, "{CANARY}": 2}}}}\n'.encode()
    _refused(lambda: _jsonl(data), "line 1 has a JSON object with a repeated key")


def test_lone_surrogates_in_a_named_field() -> None:
    data = b'{"text": "\\ud800 ' + CANARY.encode() + b'"}\n'
    _refused(lambda: _jsonl(data), "line 1: field 'text' has an unpaired surrogate escape")
    (record,) = _jsonl(data, errors="replace")
    assert record.texts == (f"\ufffd {CANARY}",)


def test_lone_surrogates_elsewhere_are_written_back_as_escapes() -> None:
    data = b'{"text": "a", "other": "x\\udc00y", "\\ud801": "\\ud83d\\ude00"}\n'
    (record,) = _jsonl(data)
    out = eio.write_jsonl(record, ("b",))
    out.encode("utf-8")  # no lone surrogate reaches the UTF-8 encoder
    assert json.loads(out) == {"text": "b", "other": "x\udc00y", "\ud801": "\U0001f600"}


@pytest.mark.parametrize(("data", "message"), [
    (b"[" * 100_000 + b"\n", "line 1 is JSON nested too deeply"),
    (b'{"n": ' + b"1" * 5000 + b"}\n", "a number is too long"),
    (b'{"text": "a"\n', "line 1 is not valid JSON"),
    (b'"just a string"\n', "line 1 is a JSON string, not an object"),
    (b'{"text": 3}\n', "field 'text' is a JSON number, not a string"),
    (b'{"body": "' + CANARY.encode() + b'"}\n', "line 1 has no field 'text'"),
])
def test_bad_jsonl(data: bytes, message: str) -> None:
    _refused(lambda: _jsonl(data), message)


@pytest.mark.parametrize(("line", "name"), [
    (b"null", "null"), (b"true", "boolean"), (b"3", "number"), (b"2.5", "number"),
    (b'"s"', "string"), (b"[1]", "array"),
])
def test_json_type_names_are_json_names(line: bytes, name: str) -> None:
    _refused(lambda: _jsonl(b'{"text": "a"}\n' + line + b"\n"), f"line 2 is a JSON {name}, not an object")
    field = b'{"text": ' + line + b"}\n"
    if name in ("null", "string"):  # the two types a named field may have
        assert len(_jsonl(field)) == 1
    else:
        _refused(lambda: _jsonl(field), f"line 1: field 'text' is a JSON {name}, not a string")
    _refused(lambda: _jsonl(b'{"text": {}}\n'), "field 'text' is a JSON object, not a string")


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e309", b"-1e400", b"[1, 1E999]"])
def test_non_finite_numbers_are_refused(number: bytes) -> None:
    """json.loads accepts NaN/Infinity and turns 1e309 into inf; json.dumps would then write
    ``Infinity``, which is not JSON (RFC 8259), into the release."""
    data = b'{"text": "a"}\n{"text": "' + CANARY.encode() + b'", "n": ' + number + b"}\n"
    _refused(lambda: _jsonl(data), "line 2: a number is not finite JSON")


def test_fields_not_anonymized_are_copied_as_written() -> None:
    """What the README promises ("other columns ... are kept exactly"): the JSONL writer used to
    re-serialize the whole object, so 1e5 became 100000.0, 1.10 became 1.1, 1e-400 became 0.0,
    an escaped \u00e9 became é and the spacing changed (left by an audit). Now only the
    anonymized field's value is written anew; every other byte of the line is the input's."""
    data = (b'  {"pi":3.14159265358979323846 , "big": 123456789012345678901234567890,"text" :"a b",'
            b'  "tiny": 1e-400, "max": 1.7976931348623157e308, "neg": -0.0, "t": 1.10, "e": 1e5,'
            b' "s": "caf\\u00e9 \\/ \\ud83d\\ude00", "o": {"k" : [1, 2.50, null]}, "n": null,'
            b' "text2": null, "z":true }  \r\n')
    (record,) = _jsonl(data, fields=("text", "text2"))
    assert record.texts == ("a b", "")
    out = eio.write_jsonl(record, ("c \u00e9 \"d\"", "ignored: the field is null"))
    expected = data.decode("utf-8").replace('"a b"', '"c \u00e9 \\"d\\""')
    assert out == expected
    assert json.loads(out)["text"] == 'c \u00e9 "d"' and json.loads(out)["text2"] is None


def test_jsonl_keeps_each_line_ending() -> None:
    data = b'{"text": "a"}\r\n{"text": "b"}\n\r\n{"text": "c"}'
    out = "".join(eio.write_jsonl(r, r.texts) for r in _jsonl(data))
    assert out == '{"text": "a"}\r\n{"text": "b"}\n\r\n{"text": "c"}'


# -- csv ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "message"), [
    # an unquoted comma pushes the rest of the note into cells no column anonymizes
    (f"id,text\n1,Patient {CANARY}, DOB 1961-03-02, lives at 12 Elm St\n",
     "row 2 (line 2) has 4 cells but the header has 2 (an unquoted comma?)"),
    (f'id,text\n1,ok\n\n2,"multi\nline {CANARY}",x\n',
     "row 4 (line 4) has 3 cells but the header has 2"),
    # fewer cells: the text may sit in a column that is not anonymized
    (f"id,text,note\n1,a,b\n{CANARY} Smith\n", "row 3 (line 3) has 1 cell but the header has 3 (a missing comma"),
    (f"id,text,note\n1,{CANARY}\n", "row 2 (line 2) has 2 cells but the header has 3"),
])
def test_rows_must_have_as_many_cells_as_the_header(data: str, message: str) -> None:
    _refused(lambda: _csv(data.encode()), message)


def test_blank_csv_lines_are_kept() -> None:
    records = _csv(b"id,text\r\n1,a\r\n\r\n2,b\r\n")
    assert [r.texts for r in records[1:]] == [("a",), (), ("b",)]
    assert [r.blank for r in records[1:]] == [False, True, False]  # no record in the counts
    writer = eio.CsvWriter(",", "\r\n")
    assert "".join(writer(r, r.texts) for r in records) == "id,text\r\n1,a\r\n\r\n2,b\r\n"


@pytest.mark.parametrize(("data", "message"), [
    (f'id,text\n1,"unterminated {CANARY}\n2,more\n', "row 2 (line 2) opens a quoted field that is never closed"),
    (f'id,text\n1,a\n2,"{CANARY}', "row 3 (line 3) opens a quoted field that is never closed"),
    (f'id,text\n1,"{CANARY}"x\n', "row 2 (line 2) has text after the closing quote"),
    (f'"id,text\n1,{CANARY}\n', "row 1 (line 1) opens a quoted field"),
])
def test_malformed_quoting_is_refused(data: str, message: str) -> None:
    _refused(lambda: _csv(data.encode()), message)


def test_well_formed_quoting_still_reads() -> None:
    """Positive controls for strict quoting: quoted delimiters, line breaks and doubled quotes."""
    data = b'id,text\r\n1,"a, b"\r\n2,"line\r\nbreak"\r\n3,"say ""hi"""\r\n4,"x\ny"\r\n5,un"quoted\r\n'
    assert [r.texts for r in _csv(data)[1:]] == [("a, b",), ("line\r\nbreak",), ('say "hi"',), ("x\ny",),
                                                ('un"quoted',)]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_csv_utf8_error_names_its_own_line(ending: bytes) -> None:
    """Audit defect 17: a text wrapper decoded 8 KiB ahead of the reader and named a line far
    before the bad byte. Line 5,003 of a file whose second row spans two lines holds it."""
    rows = [b"id,text", b'1,"two' + ending + b'lines"'] + [b"%d,fine" % i for i in range(5000)]
    data = ending.join([*rows, b"9,bad \xff byte", b"10,after"]) + ending
    message = _refused(lambda: _csv(data), "CSV line 5004 is not valid UTF-8 (byte 7 of the line)")
    assert "--encoding-errors replace" in message
    records = list(eio.read_csv(io.BufferedReader(io.BytesIO(data)), "in.csv", "replace", ["text"]))  # type: ignore[arg-type]
    assert records[1].texts == ("two" + ending.decode() + "lines",)
    assert records[-2].texts == ("bad \ufffd byte",) and records[-1].texts == ("after",)


@pytest.mark.parametrize(("data", "texts", "header"), [
    (b'\xef\xbb\xbf"text","id"\r\n"John","1"\r\n', [("John",)], "text,id"),
    (b'\xef\xbb\xbf"id","text"\r\n"1","John"\r\n', [("John",)], "id,text"),
    (b"\xef\xbb\xbftext,id\r\nJohn,1\r\n", [("John",)], "text,id"),
])
def test_a_byte_order_mark_before_a_quoted_header_is_no_part_of_it(
        data: bytes, texts: list[tuple[str, ...]], header: str) -> None:
    """Found by hand on a PowerShell-style export (a BOM, then every field quoted): the csv module
    read the first column name as ``\\ufeff"text"`` with its quotes, so ``--field text`` was
    refused, and a first column not anonymized was written back as a name with a BOM and quotes."""
    records = _csv(data)
    assert [r.texts for r in records[1:]] == texts
    writer = eio.CsvWriter(",", "\r\n")
    out = "".join(writer(r, r.texts) for r in records)
    assert out.startswith("\ufeff" + header + "\r\n")  # the mark is kept, the name is plain


def test_headerless_csv_never_shows_its_first_row() -> None:
    message = _refused(lambda: _csv(f"{CANARY} Smith,chest pain,54\n1,2,3\n".encode()),
                       "no column 'text' in the first row (3 columns)")
    assert "header row" in message


@pytest.mark.parametrize(("data", "delimiter", "hint"), [
    (f"id;text;ward\n1;{CANARY} Smith;B\n".encode(), ",", "semicolon-separated"),
    (f"id\ttext\n1\t{CANARY} Smith\n".encode(), ",", "tab-separated: name it .tsv or give --format tsv"),
    (f"id,text\n1,{CANARY} Smith\n".encode(), "\t", "comma-separated: name it .csv or give --format csv"),
])
def test_a_csv_read_with_another_delimiter_gets_a_hint(data: bytes, delimiter: str, hint: str) -> None:
    """A semicolon-separated export (European spreadsheets) or a tab-separated file named .csv
    was told 'no column 'text' in the first row (1 column); the first row must be a header row
    naming the columns', though it has one (found by the second CLI audit, by hand)."""
    message = _refused(lambda: list(eio.read_csv(io.BytesIO(data), "x", "strict", ["text"], delimiter)),
                       "no column 'text' in the first row (1 column)")
    assert hint in message and "header row" not in message


def test_jsonl_read_as_csv_gets_a_hint() -> None:
    _refused(lambda: _csv(f'{{"text": "{CANARY}"}}\n'.encode()), "looks like JSON Lines")


def test_duplicate_named_column_is_ambiguous() -> None:
    _refused(lambda: _csv(b"id,text,text\n1,a,b\n"), "column 'text' appears 2 times")
    rows = _csv(b"x,x,text\n1,2,a\n")  # repeated names that are not anonymized are fine
    assert rows[1].texts == ("a",)


# -- output paths -------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "message"), [
    ("", "output path is empty"),
    ("newdir/", "not a directory"),
    ("missing/out.txt", "output directory does not exist"),
])
def test_check_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=message):
        eio.check_output(path)
    assert os.listdir(tmp_path) == []
    for fine in (None, "-", "/dev/null", "out.txt", ".", str(tmp_path) + "/"):
        eio.check_output(fine)


def test_same_file_knows_standard_input(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("x", encoding="utf-8")
    code = f"from embedanon.files import same_file; print(same_file('-', {str(target)!r}))"
    with open(target, "rb") as stdin:
        same = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True,
                              timeout=60)
    assert same.stdout.strip() == "True", same.stderr
    other = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60)
    assert other.stdout.strip() == "False"
    assert files.same_file(str(target), str(target)) and not files.same_file(str(target), "-")


def test_atomic_output_to_stdout_is_all_or_nothing(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    with pytest.raises(InputError), eio.atomic_output(None) as out:
        for record in eio.read_txt(io.BytesIO(b"fine\nalso fine\n\xff bad\n"), "<stdin>", "strict"):
            out.write(eio.write_txt(record, record.texts))
    assert capsysbinary.readouterr().out == b""


# -- round trips (hypothesis) -------------------------------------------------------------------
_text = st.text(st.characters(codec="utf-8"), max_size=12)
_lone = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])
_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30),
                  st.floats(allow_nan=False, allow_infinity=False), _text,
                  st.builds(lambda a, s, b: a + s + b, _text, _lone, _text))
_value = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(_text, inner, max_size=3), max_leaves=8)
_record = st.dictionaries(_text.filter(lambda k: k != "text"), _value, max_size=4).flatmap(
    lambda other: st.one_of(st.none(), _text).map(lambda text: {"text": text, **other}))


def _mark(texts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"<{t}>" for t in texts)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(st.one_of(_record, st.just(None)), max_size=6),
       ending=st.sampled_from(["\n", "\r\n"]))
def test_jsonl_round_trip(records: list[dict[str, object] | None], ending: str) -> None:
    lines = ["" if r is None else json.dumps(r) for r in records]  # None: a blank line
    data = "".join(line + ending for line in lines).encode("utf-8")
    parsed = _jsonl(data)
    assert len(parsed) == len(records)  # record count kept, blank lines included
    out = "".join(eio.write_jsonl(r, _mark(r.texts)) for r in parsed)
    out = out.encode("utf-8").decode("utf-8")  # what is written must be valid UTF-8
    out_lines = out.split(ending)[:-1]
    assert len(out_lines) == len(records)
    for before, line in zip(records, out_lines):
        if before is None:
            assert line == ""
            continue
        after = json.loads(line)
        assert list(after) == list(before)  # same keys, same order
        for key, value in before.items():
            if key == "text":
                assert after[key] == (None if value is None else f"<{value}>")
            else:
                assert after[key] == value


_cell = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=10)


@settings(max_examples=200, deadline=None)
@given(width=st.integers(1, 4), data=st.data(), terminator=st.sampled_from(["\n", "\r\n"]),
       delimiter=st.sampled_from([",", "\t"]))
def test_csv_round_trip(width: int, data: st.DataObject, terminator: str, delimiter: str) -> None:
    col = data.draw(st.integers(0, width - 1))
    header = [f"c{i}" for i in range(width)]
    header[col] = "text"
    rows = data.draw(st.lists(st.lists(_cell, min_size=width, max_size=width), max_size=6))
    buf = io.StringIO()  # QUOTE_ALL: a minimally quoted "\r" would already be a line break here
    csv.writer(buf, delimiter=delimiter, lineterminator=terminator, quoting=csv.QUOTE_ALL).writerows(
        [header, *rows])
    raw = buf.getvalue().encode("utf-8")
    records = list(eio.read_csv(io.BufferedReader(io.BytesIO(raw)), "in", "strict", ["text"], delimiter))  # type: ignore[arg-type]
    assert len(records) == len(rows) + 1 and records[0].header
    writer = eio.CsvWriter(delimiter, terminator)
    out = "".join(writer(r, r.texts if r.header else _mark(r.texts)) for r in records)
    got = list(csv.reader(io.StringIO(out, newline=""), delimiter=delimiter))
    assert got[0] == header and len(got) == len(rows) + 1
    for before, after in zip(rows, got[1:]):
        for i, cell in enumerate(before):
            assert after[i] == (f"<{cell}>" if i == col else cell)


# -- one parse per JSONL record (the walk against its plain reference) --------------------------
def test_jsonl_values_are_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Left by the audits: each record was parsed whole (``parse_json_line``) and then every
    top-level value decoded again to find where the released field is written
    (``_field_spans``); a float literal reached the decoder's ``parse_float`` hook twice."""
    seen: list[str] = []

    def counting(literal: str) -> float:
        seen.append(literal)
        return eio._finite_float(literal)

    decoder = json.JSONDecoder(object_pairs_hook=eio._unique_pairs, parse_float=counting,
                               parse_constant=eio._no_constant)
    monkeypatch.setattr(eio, "_DECODER", decoder)
    data = b'{"score": 2.5, "text": "a b", "o": {"k": [1.5, "x"]}}\n'
    (record,) = _jsonl(data)
    assert seen == ["2.5", "1.5"]
    assert eio.write_jsonl(record, ("c",)) == data.decode().replace('"a b"', '"c"')


def _reference(body: str, fields: list[str]) -> tuple[object, dict[str, tuple[int, int]]]:
    """The plain path: the whole line parsed, then each value's place found by decoding again."""
    obj = eio.parse_json_line(body, "in", fields)
    return obj, eio._field_spans(body, fields) if isinstance(obj, dict) else {}


def _outcome(parse):  # type: ignore[no-untyped-def]
    try:
        return parse()
    except InputError as exc:
        return ("refused", str(exc))


_space = st.text(st.sampled_from(" \t\r\n"), max_size=2)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record=_record, spaces=st.lists(_space, min_size=4, max_size=4), cut=st.integers(0, 400),
       edit=st.sampled_from(["keep", "drop", "insert", "repeat key"]),
       piece=st.sampled_from([",", "}", "{", ":", '"', "]", "x", "1", " ", ",}", "NaN", "1e999"]))
def test_jsonl_walk_agrees_with_the_plain_parse(record: dict[str, object], spaces: list[str], cut: int,
                                                edit: str, piece: str) -> None:
    """:func:`~embedanon.io._object_and_spans` gives what the whole parse and ``_field_spans``
    give on any object written with any JSON spacing: the same object and places, or the same
    one-line refusal when an edit (a character dropped or inserted, a key repeated) makes it
    invalid."""
    lead, colon, comma, tail = spaces
    body = lead + json.dumps(record, ensure_ascii=False, separators=(comma + "," + comma, colon + ":" + colon)) + tail
    if edit == "drop" and body:
        body = body[: cut % len(body)] + body[cut % len(body) + 1:]
    elif edit == "insert":
        body = body[: cut % (len(body) + 1)] + piece + body[cut % (len(body) + 1):]
    elif edit == "repeat key":
        body = body.rstrip()[:-1] + (', "text": null}' if record else '"text": null}')
    fields = ["text", "absent"]
    assert _outcome(lambda: eio._object_and_spans(body, "in", fields)) == _outcome(lambda: _reference(body, fields))
