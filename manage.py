#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 -- loads the settings, which check the environment
    except ImproperlyConfigured as error:
        # A missing variable deserves its message, not a traceback.
        sys.exit(f"factcheck cannot start: {error}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
