"""SQL helpers for migrations: statements that each database spells its own way."""


def run_sql_for_vendor(statements_by_vendor):
    """
    A RunPython function that executes the SQL statements listed for the current
    database vendor (``{"sqlite": [...], "postgresql": [...]}``); for triggers
    and other things each database spells its own way.
    """

    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run
