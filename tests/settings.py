"""Settings for the test suite: the real settings, with test-only speed-ups."""

import os
import tempfile
from pathlib import Path

os.environ.setdefault("DEBUG", "true")

from factcheck.settings import *  # noqa: F403

# Uploaded files of a test run go to a throw-away folder, never to var/media.
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="factcheck-test-media-"))

# Hashing passwords properly is slow by design; tests do not need that.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Unit tests run tasks in-process; tests that need the real worker say so.
TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

# Capture by URL fetches from a test server on loopback; production allows no such network.
URL_FETCH_ALLOWED_ADDRESSES = ["127.0.0.1/32"]
