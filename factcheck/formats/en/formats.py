# English dates as the desk has always shown them ("7 December 2026"), which
# Django's own English formats ("Dec. 7, 2026") would change. Templates name the
# formats (``|date:"DATE_FORMAT"``) so every other language gets its own order.
DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y H:i"
