"""WSGI entry point, used by gunicorn in production (see the README)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")

application = get_wsgi_application()
