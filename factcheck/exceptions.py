"""
Refusals a service raises that are not about the data it was given.

A ``ValidationError`` says that what was sent is wrong (a blank statement, a
selection that does not match the text): the view shows it beside the form.
The exceptions here say that the request cannot be done at all, whatever was
sent: the person may not do it (``NotAllowed``), what it names is not there
(``NotFound``), or it collides with the stored state (``Conflict``). Views let
them through; ``factcheck.middleware.RefusalMiddleware`` answers each with its
status code, in one place. A view that can say more (``EditConflict`` shows the
stored claim beside what was typed) catches its own.
"""


class Refused(Exception):
    """
    A request refused, with a sentence for the person (``message``, translated
    into the request's language, or lazily) and a short ``code`` for programs
    and tests, as ``ValidationError`` has.
    """

    #: The HTTP status the refusal is answered with.
    status = 400

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        # A lazy message becomes its text in the language active when it is shown.
        return str(self.message)


class NotAllowed(Refused):
    """The person may not do this (their role, or their place in the claim's review)."""

    status = 403


class NotFound(Refused):
    """What the request names is not there, or not within the person's reach."""

    status = 404


class Conflict(Refused):
    """The stored state moved on since the page was read: the change would overwrite it."""

    status = 409
