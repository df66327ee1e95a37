from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from providers.sse import SSEEvent, SSEParser, looks_like_sse, parse


def feed_all(chunks: list[bytes | str]) -> list[SSEEvent]:
    return list(parse(chunks))


def test_one_event_per_blank_line() -> None:
    events = feed_all([b'data: {"a":1}\n\ndata: [DONE]\n\n'])
    assert events == [SSEEvent('{"a":1}'), SSEEvent("[DONE]")]


def test_event_and_id_fields_are_read() -> None:
    events = feed_all([b'event: content_block_stop\nid: 7\ndata: {"index":0}\n\n'])
    assert events == [SSEEvent('{"index":0}', event="content_block_stop", id="7")]


def test_crlf_and_lone_cr_line_endings() -> None:
    crlf = feed_all([b"data: one\r\n\r\ndata: two\r\n\r\n"])
    cr = feed_all([b"data: one\r\rdata: two\r\r"])
    assert crlf == cr == [SSEEvent("one"), SSEEvent("two")]


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    # The LF of "\r\n" arriving in the next chunk must not count as the blank line that ends the event.
    events = feed_all([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"])
    assert events == [SSEEvent("a\nb")]


def test_empty_chunk_between_cr_and_lf_does_not_split_the_event() -> None:
    events = feed_all([b"data: a\r", b"", b"\ndata: b\r\n\r\n"])
    assert events == [SSEEvent("a\nb")]


def test_chunks_split_anywhere() -> None:
    body = b'data: {"x": "hello"}\n\nevent: error\ndata: {"y": 2}\n\n'
    whole = feed_all([body])
    for cut in range(1, len(body)):
        assert feed_all([body[:cut], body[cut:]]) == whole
    assert feed_all([bytes([byte]) for byte in body]) == whole


def test_multibyte_character_split_across_chunks() -> None:
    body = 'data: {"city": "Zürich → 東京 🌧"}\n\n'.encode()
    byte_by_byte = feed_all([bytes([byte]) for byte in body])
    assert byte_by_byte == [SSEEvent('{"city": "Zürich → 東京 🌧"}')]


def test_invalid_utf8_inside_a_chunk_is_replaced_not_fatal() -> None:
    events = feed_all([b"data: caf\xff!\n\n"])
    assert events == [SSEEvent("caf\ufffd!")]


def test_comments_are_ignored() -> None:
    events = feed_all([b": OPENROUTER PROCESSING\n\n:keep-alive\ndata: x\n\n"])
    assert events == [SSEEvent("x")]


def test_multiline_data_joins_with_lf() -> None:
    assert feed_all([b"data: line one\ndata: line two\n\n"]) == [SSEEvent("line one\nline two")]


def test_only_one_leading_space_is_dropped() -> None:
    events = feed_all([b"data:x\n\ndata:  two spaces\n\n"])
    assert [event.data for event in events] == ["x", " two spaces"]


def test_field_without_colon_counts_as_empty_value() -> None:
    assert feed_all([b"data\ndata: b\n\n"]) == [SSEEvent("\nb")]


def test_unknown_fields_and_retry_are_ignored() -> None:
    assert feed_all([b"retry: 3000\nfoo: bar\ndata: x\n\n"]) == [SSEEvent("x")]


def test_event_name_without_data_still_dispatches() -> None:
    assert feed_all([b"event: ping\n\n"]) == [SSEEvent("", event="ping")]


def test_blank_lines_alone_dispatch_nothing() -> None:
    assert feed_all([b"\n\n\r\n\n"]) == []


def test_event_without_final_blank_line_is_dropped_at_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: done\n\ndata: partial\n") == [SSEEvent("done")]
    assert parser.close() == []
    assert parser.feed(b"data: next\n\n") == [SSEEvent("next")]  # nothing of the dropped event leaks


def test_str_chunks_are_accepted() -> None:
    assert feed_all(["data: é\n", "\n"]) == [SSEEvent("é")]


def test_encode_round_trips_multiline_data_and_event_name() -> None:
    event = SSEEvent('{"a": 1}\nsecond', event="error")
    assert event.encode() == b'event: error\ndata: {"a": 1}\ndata: second\n\n'
    assert feed_all([event.encode()]) == [event]


def test_looks_like_sse() -> None:
    assert looks_like_sse('data: {"a": 1}\n\n')
    assert looks_like_sse("\n\nevent: message_start\ndata: {}\n\n")
    assert looks_like_sse(": comment first\ndata: x\n\n")
    assert not looks_like_sse('{"choices": []}')
    assert not looks_like_sse('  {"error": {"message": "data: no"}}')


def _reference(text: str) -> list[SSEEvent]:
    """The event-stream rules applied line by line to the whole text at once: the parser's oracle."""
    events: list[SSEEvent] = []
    data: list[str] = []
    name: str | None = None
    ident: str | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]:  # the unterminated tail waits
        if not line:
            if data or name is not None:  # a blank line with neither dispatches nothing and keeps the id
                events.append(SSEEvent("\n".join(data), name, ident))
                data, name, ident = [], None, None
            continue
        field_name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if line.startswith(":"):
            continue
        if field_name == "data":
            data.append(value)
        elif field_name == "event":
            name = value
        elif field_name == "id":
            ident = value
    return events


LINES = st.sampled_from(
    [
        "data: {}",
        "data: a",
        "data:",
        "data: ",
        "data:b",
        "data: 東京 é",
        "event: x",
        "id: 7",
        ": note",
        "retry: 1",
        "",
        "data",
    ]
)


@settings(max_examples=1000)
@given(
    st.lists(st.tuples(LINES, st.sampled_from(["\n", "\r\n", "\r"])), max_size=30),
    st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_any_stream_cut_anywhere_parses_as_the_rules_say(lines: list[tuple[str, str]], cuts: list[int]) -> None:
    text = "".join(line + end for line, end in lines)
    if text.endswith("\r"):
        text += "\n"  # a final lone CR waits for a possible LF; the reference ends it at once
    body = text.encode()
    points = sorted({min(cut, len(body)) for cut in cuts})
    chunks = [body[start:end] for start, end in zip([0, *points], [*points, len(body)], strict=True)]
    parser = SSEParser()
    assert [event for chunk in chunks for event in parser.feed(chunk)] == _reference(text)
