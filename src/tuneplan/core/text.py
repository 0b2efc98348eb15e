"""Text from plans and files made safe to print on a terminal.

A plan's name, a GPU name or a problem message can come from a shared file. Printed raw, an escape
sequence in it (``ESC [ 2 J``) drives the terminal, a newline forges an extra line of output, NUL and
bidirectional overrides hide or reorder what follows. :func:`terminal_safe` shows such characters as
Python-style escapes (``\\x1b``, ``\\n``, ``\\u202e``) and leaves ordinary text, Chinese or accented
names included, as it is. Pure: no I/O.
"""

from __future__ import annotations

import unicodedata

__all__ = ["json_terminal_safe", "terminal_safe"]

#: Characters that are not C0/C1 controls yet change how a terminal shows the rest of the line: the
#: bidirectional embeddings, overrides and isolates (the "Trojan Source" characters, CVE-2021-42574),
#: and the Unicode line and paragraph separators.
_FORMAT_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
)


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in {"Cc", "Cs"} or ch in _FORMAT_CONTROLS


def terminal_safe(text: str) -> str:
    """``text`` with every control character (C0, DEL, C1), bidirectional control and line separator
    replaced by its escape, so one value prints as one visible line and cannot drive the terminal.

    Lone surrogates (from undecodable file names) are escaped too, so the result always encodes.
    Any other character, including CJK, emoji and combining marks, is kept.
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(ch) if _unsafe(ch) else ch for ch in text)


def json_terminal_safe(document: str) -> str:
    """A JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters :func:`terminal_safe` escapes
    written as JSON ``\\uXXXX`` escapes, so it decodes to the same value and prints safely.

    Newlines, carriage returns and tabs are kept: JSON escapes them inside strings already, so raw ones are
    the document's own layout.
    """
    if document.isascii() and all(ch >= " " or ch in "\n\r\t" for ch in document) and "\x7f" not in document:
        return document
    return "".join(f"\\u{ord(ch):04x}" if _unsafe(ch) and ch not in "\n\r\t" else ch for ch in document)
