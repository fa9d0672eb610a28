from django.apps import AppConfig


class FactcheckConfig(AppConfig):
    name = "factcheck"
    verbose_name = "Fact-check desk"

    def ready(self):
        from django.core import signals
        from django.db.backends.signals import connection_created

        # backends: connects the receiver that keeps a user object's kept permissions honest;
        # checks: registers the system checks.
        from factcheck import backends, checks, reference_data  # noqa: F401
        from factcheck.database import add_sqlite_functions
        from factcheck.desk_pages import watch_connection

        connection_created.connect(watch_connection, dispatch_uid="desk-pages-count-writes")
        # A request reads the generations of the data kept between changes once.
        signals.request_started.connect(
            reference_data.request_started, dispatch_uid="reference-data-request-started"
        )
        signals.request_finished.connect(
            reference_data.request_finished, dispatch_uid="reference-data-request-finished"
        )
        connection_created.connect(add_sqlite_functions, dispatch_uid="sqlite-functions")
