# factcheck — every command sets itself up: a fresh clone needs only `make run`
# or `make test`. PYTHON=/path/to/python3.13 picks the interpreter by hand.

VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run test bench bench-web load backup restore lint format clean screenshots audit

$(STAMP): pyproject.toml scripts/find-python
	@python=$$(PYTHON="$(PYTHON)" scripts/find-python) || exit 1; \
	if ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "Creating $(VENV) with $$python"; \
		rm -rf $(VENV) && "$$python" -m venv $(VENV) || exit 1; \
	fi
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

setup: $(STAMP)

## Migrate the SQLite database, seed the first case and demo users, and serve
## http://127.0.0.1:8000 with the background-task worker beside it.
run: setup
	@DEBUG=true scripts/run-dev

## The whole test suite (SQLite by default; DATABASE_URL=postgres://… for PostgreSQL).
test: setup
	DEBUG=true $(PY) -m pytest $(PYTEST_ARGS)

## Refresh the README walkthrough's pictures in docs/screenshots from the browser journey.
screenshots: setup
	@mkdir -p docs/screenshots
	FACTCHECK_SCREENSHOTS=docs/screenshots DEBUG=true $(PY) -m pytest -q \
		tests/test_browser_journey.py -k whole_journey

## Benchmarks: anchoring, re-anchoring against diff-match-patch, PDF extraction.
bench: setup
	$(PY) bench/anchoring.py
	$(PY) bench/extraction.py

## Page benchmark: gunicorn on PostgreSQL with the scale dataset (see bench/web.py for
## BENCH_DATABASE_URL, BENCH_SCALE_FLAGS="--cases 50 --claims 2500 --sources 500" etc.).
bench-web: setup
	$(PY) bench/web.py

## 50 users for 2 minutes with PostgreSQL stopped for 10 s in the middle, on a private
## PostgreSQL (never the machine's own); checks every acknowledged write. Takes ~4 minutes.
## Quick try: LOAD_DURATION=30s LOAD_USERS=10 make load
load: setup
	$(PY) bench/load.py

## Back up the database and MEDIA_ROOT into var/backups/<date and time> (or BACKUP=dir),
## with a manifest of SHA-256s and row counts. Uses the same environment as the app.
backup: setup
	DEBUG=$${DEBUG:-true} $(PY) manage.py backup $(BACKUP)

## Replace the database and the uploads with BACKUP=dir, checking every hash and row count.
restore: setup
	@test -n "$(BACKUP)" || { echo "Name the backup: make restore BACKUP=var/backups/…"; exit 2; }
	DEBUG=$${DEBUG:-true} $(PY) manage.py restore $(BACKUP)

## Known vulnerabilities in the pinned dependencies: pip-audit --strict against PyPI's
## vulnerability API, or, where only PyPI's project pages are reachable, their data.
audit: setup
	$(PY) scripts/audit-dependencies

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
