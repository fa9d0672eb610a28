"""STORAGE_BACKEND: uploads on the file system by default, or in an S3-compatible bucket."""

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
SHOW_STORAGE = (
    "import django; django.setup(); "
    "from django.core.files.storage import storages; s = storages['default']; "
    "print(type(s).__module__, type(s).__name__, getattr(s, 'bucket_name', '-'), "
    "getattr(s, 'endpoint_url', '-'), getattr(s, 'file_overwrite', '-'))"
)


def run_with(**environment):
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env |= {"DEBUG": "true", "DJANGO_SETTINGS_MODULE": "factcheck.settings"} | environment
    return subprocess.run(
        [sys.executable, "-c", SHOW_STORAGE],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_uploads_go_to_the_file_system_by_default():
    result = run_with()

    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == [
        "django.core.files.storage.filesystem",
        "FileSystemStorage",
    ]


def test_storage_backend_s3_puts_uploads_in_the_named_bucket_without_overwriting():
    result = run_with(
        STORAGE_BACKEND="s3",
        AWS_STORAGE_BUCKET_NAME="factcheck-uploads",
        AWS_S3_ENDPOINT_URL="http://127.0.0.1:9000",
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "storages.backends.s3",
        "S3Storage",
        "factcheck-uploads",
        "http://127.0.0.1:9000",
        "False",
    ]


def test_storage_backend_s3_without_a_bucket_is_refused_with_the_variable_to_set():
    result = run_with(STORAGE_BACKEND="s3")

    assert result.returncode != 0
    assert "AWS_STORAGE_BUCKET_NAME" in result.stderr


def test_an_unknown_storage_backend_is_refused():
    result = run_with(STORAGE_BACKEND="ftp")

    assert result.returncode != 0
    assert "STORAGE_BACKEND='ftp' is not known" in result.stderr
