"""
Logs for production: one JSON object per line, the task-run lines, and Sentry.

``JsonFormatter`` (``LOG_FORMAT=json``, the default with DEBUG off) writes every
log record as one JSON object: time, level, logger, message, the fields passed in
``extra`` (a request's id, user, method, path, status and duration from
factcheck/request_log.py; a task's name, id, status and duration from
``log_task_finished``), and the traceback of an exception, so that a log shipper
needs no pattern to read them.
"""

import json
import logging
from datetime import UTC, datetime

from django.tasks.signals import task_finished

task_logger = logging.getLogger("factcheck.tasks")

#: The attributes every LogRecord has; anything else on a record came in ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON."""

    def format(self, record):
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # default=str: a value that is not JSON (a date, an id object) is written as text
        # rather than losing the line.
        return json.dumps(line, default=str, ensure_ascii=False)


def log_task_finished(sender, task_result, **kwargs):
    """One line for each task run: its name, id, status and duration."""
    started, finished = task_result.started_at, task_result.finished_at
    duration_ms = (
        round((finished - started).total_seconds() * 1000, 1) if started and finished else None
    )
    status = str(getattr(task_result.status, "value", task_result.status))
    task_logger.log(
        logging.ERROR if status == "FAILED" else logging.INFO,
        "task %s %s",
        task_result.task.module_path,
        status,
        extra={
            "task_name": task_result.task.module_path,
            "task_id": str(task_result.id),
            "task_status": status,
            "duration_ms": duration_ms,
        },
    )


task_finished.connect(log_task_finished, dispatch_uid="factcheck-task-log")


def init_sentry(*, dsn, environment=None, release=None, **options):
    """
    Start sending errors to Sentry (from settings, when SENTRY_DSN is set).
    ``send_default_pii=False``: no user names, e-mail or IP addresses, cookies
    or request bodies leave the server. Only errors: no performance tracing.
    """
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    return sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release,
        send_default_pii=False,
        traces_sample_rate=0,
        integrations=[DjangoIntegration()],
        **options,
    )
