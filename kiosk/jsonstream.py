"""Read JSON input at the command line's edge: one value, or a top-level array item by item.

An array is decoded one element at a time from a growing buffer, so memory stays flat in the
input's size and a result can be written before the next element is read. A UTF-8 BOM (what
Windows editors write) is accepted. Input that is not JSON raises `JsonInputError` (exit 2)
naming the line and column; a value the decoder cannot hold (nested past the recursion limit,
an integer of more than 4,300 digits) is named the same way instead of a traceback.

>>> import io
>>> many, items = read_items(io.StringIO('\\ufeff[1, {"a": [2]}, "x"]'), "stdin")
>>> many, list(items)
(True, [1, {'a': [2]}, 'x'])
>>> read_items(io.StringIO('{"a": 1}'), "f.json")[1].__next__()
{'a': 1}
"""

from __future__ import annotations

import json
import re
from typing import Iterator, TextIO

import orjson

from kiosk.errors import KioskError

CHUNK = 1 << 16
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class JsonText(str):
    """One element's JSON text, already checked by the reader; `decode()` is its value."""

    def decode(self) -> object:  # type: ignore[override]
        try:
            return orjson.loads(self)
        except Exception:  # noqa: BLE001 - what orjson refuses (NaN, 20-digit integers) json reads as the reader did
            return json.loads(self)


class JsonInputError(KioskError):
    """Input that is not the JSON expected (exit 2)."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=2)


def read_items(handle: TextIO, name: str, what: str = "showdown",
               texts: bool = False) -> tuple[bool, Iterator[object]]:
    """(True, the array's elements one by one) for a top-level array, else (False, [the value]).
    `texts=True` yields each element's JSON text (checked), for another process to decode."""
    reader = _Reader(handle, name)
    reader.texts = texts
    first = reader.peek()
    if first is None:
        raise JsonInputError(f"{name} is empty: expected a {what} JSON object or an array of them")
    if first != "[":
        return False, iter([reader.whole()])
    return True, reader.elements()


class _Reader:
    def __init__(self, handle: TextIO, name: str):
        self.handle, self.name = handle, name
        self.buf, self.pos, self.eof = "", 0, False
        self.lines_before = 0  # newlines in text already dropped from the buffer
        self.col_base = 0  # chars of the buffer's first line already dropped
        self.texts = False

    def _more(self, size: int = CHUNK) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.handle.read(size)
        except UnicodeDecodeError as err:
            raise JsonInputError(f"{self.name} is not UTF-8 text (byte {err.start})") from None
        except OSError as err:
            raise JsonInputError(f"cannot read {self.name}: {err.strerror or err}") from None
        if not self.lines_before and not self.buf and chunk.startswith("\ufeff"):
            chunk = chunk[1:]
        if not chunk:
            self.eof = True
            return False
        dropped = self.buf[: self.pos]
        newlines = dropped.count("\n")
        if newlines:
            self.lines_before += newlines
            self.col_base = len(dropped) - dropped.rfind("\n") - 1
        else:
            self.col_base += len(dropped)
        self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        return True

    def peek(self) -> str | None:
        """The next character that is not white space, or None at the end."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return None

    def whole(self) -> object:
        while self._more():
            pass
        value, end = self._decode(final=True)
        self.pos = end
        if self.peek() is not None:
            self._fail("extra data after the JSON value", self.pos)
        return value

    def elements(self) -> Iterator[object]:
        self.pos += 1  # the '['
        if self.peek() == "]":
            self._end()
            return
        while True:
            if self.peek() is None:
                self._fail("the array is not closed (expected ']')", self.pos)
            value, end = self._decode()  # the element starts at self.pos (reading more moves the buffer)
            text = JsonText(self.buf[self.pos:end]) if self.texts else None
            self.pos = end
            yield text if self.texts else value
            sep = self.peek()
            if sep == "]":
                self._end()
                return
            if sep != ",":
                self._fail("expected ',' or ']' after an array element", self.pos)
            self.pos += 1

    def _end(self) -> None:
        self.pos += 1
        if self.peek() is not None:
            self._fail("extra data after the JSON array", self.pos)

    def _decode(self, final: bool = False) -> tuple[object, int]:
        """Decode the value at pos, reading more while it may continue past the buffer."""
        size = CHUNK
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or final or self.eof:
                    return value, end
                err_pos = None  # a number or literal at the buffer's end may go on
            except json.JSONDecodeError as err:
                err_pos, message = err.pos, err.msg
            except RecursionError:
                err_pos, message = self.pos, "nested too deeply to read"
            except ValueError as err:  # int() past the 4,300-digit limit
                err_pos, message = self.pos, "a whole number of more than 4,300 digits"
            if final or not self._more(size):
                if err_pos is None:
                    continue
                self._fail(message, err_pos)
            size *= 2

    def _fail(self, message: str, pos: int) -> None:
        before = self.buf[:pos]
        line = self.lines_before + before.count("\n") + 1
        newline = before.rfind("\n")
        col = (pos - newline) if newline >= 0 else (self.col_base + pos + 1)
        raise JsonInputError(f"{self.name}: malformed JSON at line {line}, column {col}: {message}")
