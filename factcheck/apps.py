from django.apps import AppConfig


class FactcheckConfig(AppConfig):
    name = "factcheck"
    verbose_name = "Fact-check desk"

    def ready(self):
        from django.db.backends.signals import connection_created

        # Connects the receiver that keeps a user object's kept permissions honest.
        from factcheck import backends  # noqa: F401
        from factcheck.database import add_sqlite_functions
        from factcheck.desk_pages import watch_connection

        connection_created.connect(watch_connection, dispatch_uid="desk-pages-count-writes")
        connection_created.connect(add_sqlite_functions, dispatch_uid="sqlite-functions")
