"""
Write the scale dataset (bench/scale.py) into the database the environment
names, as the app reads it (``DATABASE_URL``; SQLite in var/ without it):

    DATABASE_URL=postgres://… .venv/bin/python bench/make_scale_dataset.py --cases 50

``--help`` lists the flags; ``--if-absent`` succeeds at once when the dataset
is there already. The benchmarks run it themselves.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")

import django

django.setup()

from bench.scale import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
