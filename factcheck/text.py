"""Cleaning typed text."""

import re

#: Control characters other than tab and the line breaks: XML 1.0 (the feeds)
#: cannot carry them, and in typed text they come only from pasted PDFs.
_CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def without_control_characters(text):
    """``text`` without control characters (see ``_CONTROL_CHARACTERS``); a form feed is a space."""
    return _CONTROL_CHARACTERS.sub(lambda found: " " if found[0] == "\x0c" else "", text)


def with_lf(text):
    """``text`` with each CR LF, and each CR alone, as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
