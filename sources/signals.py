"""
Signals the sources app sends so that apps built on it (claims) can react
without sources knowing about them.
"""

from django.dispatch import Signal

#: Sent after a new version's quotations were carried over from the previous
#: version: ``version`` and the list of ``reanchorings`` made.
quotations_reanchored = Signal()

#: Sent when a person confirms a changed quotation's new words: ``reanchoring``, ``actor``.
reanchoring_confirmed = Signal()
