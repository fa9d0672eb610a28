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

#: Sent after a source's title changed (reviewers sign off on what they saw, its
#: title included): ``source``, ``old_title``, ``actor``.
source_retitled = Signal()
