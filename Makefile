# factcheck — every command sets itself up: a fresh clone needs only `make run`
# or `make test`. PYTHON=/path/to/python3.13 picks the interpreter by hand.

VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

# The lock files: every dependency, transitively, pinned with the hashes of all its files
# for Python 3.12+ on any platform. `make lock` writes them from pyproject.toml.
LOCK     := requirements/dev.txt
LOCKS    := requirements/base.txt requirements/dev.txt
UV_LOCK  := $(VENV)/bin/uv pip compile pyproject.toml --generate-hashes --universal --python-version 3.12

.PHONY: setup translations messages run test bench bench-web load backup restore lint format clean screenshots audit lock

# Installs exactly the lock (pip refuses any file whose hash is not in it), then the project
# itself, editable and without dependencies (its build backend comes from build isolation).
# The first pass brings the lock's pip too: a new venv's own may be too old to resolve the
# lock (Python 3.12.1's pip 23.2 fails on extras under --require-hashes), so it resolves
# nothing; the second, with the lock's pip, fails if the lock misses a dependency.
$(STAMP): pyproject.toml $(LOCKS) scripts/find-python
	@python=$$(PYTHON="$(PYTHON)" scripts/find-python) || exit 1; \
	if ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "Creating $(VENV) with $$python"; \
		rm -rf $(VENV) && "$$python" -m venv $(VENV) || exit 1; \
	fi
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $(LOCK)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r $(LOCK)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $(STAMP)

setup: $(STAMP)

## Compile the translation catalogues locale/*/LC_MESSAGES/*.po to the .mo files Django
## reads, with Babel (pure Python: no GNU gettext needed). The .mo files are built, never
## committed; a .mo whose content would not change is left alone.
translations: setup
	@DEBUG=$${DEBUG:-true} $(PY) manage.py compile_translations

## Refresh the catalogues of es, pt_BR, fr and ar from the marked strings in the code
## (Django's makemessages: GNU gettext's xgettext and msgmerge). The options are
## MAKEMESSAGES_OPTIONS in factcheck/management/commands/compile_translations.py, which
## the catalogue test uses too; keep the two the same. Then translate, and `make translations`.
MESSAGES_IGNORE := -i .venv -i var -i tests -i bench -i docs -i test-artifacts -i build -i '*.egg-info'
messages: setup
	@for tool in xgettext msgmerge msguniq; do command -v $$tool > /dev/null || { \
		echo "make messages needs GNU gettext ($$tool is missing): apt-get install gettext" \
		"(macOS: brew install gettext)"; exit 2; }; done
	DEBUG=$${DEBUG:-true} $(PY) manage.py makemessages -d django -e html,txt,py \
		$(MESSAGES_IGNORE) -i static --no-obsolete --add-location=file \
		-l es -l pt_BR -l fr -l ar
	DEBUG=$${DEBUG:-true} $(PY) manage.py makemessages -d djangojs -e js \
		$(MESSAGES_IGNORE) -i static/vendor -i claims -i sources -i factcheck \
		--no-obsolete --add-location=file -l es -l pt_BR -l fr -l ar

## Migrate the SQLite database, seed the first case and demo users, and serve
## http://127.0.0.1:8000 with the background-task worker beside it.
run: setup translations
	@DEBUG=true scripts/run-dev

## The whole test suite (SQLite by default; DATABASE_URL=postgres://… for PostgreSQL).
test: setup translations
	DEBUG=true $(PY) -m pytest $(PYTEST_ARGS)

## Refresh the README walkthrough's pictures in docs/screenshots from the browser journey.
screenshots: setup
	@mkdir -p docs/screenshots
	FACTCHECK_SCREENSHOTS=docs/screenshots DEBUG=true $(PY) -m pytest -q \
		tests/browser/test_browser_journey.py -k whole_journey

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

## Known vulnerabilities in the locked dependencies (AUDIT_LOCK=file audits another lock):
## pip-audit --strict --require-hashes --disable-pip -r $(LOCK), with PyPI's vulnerability API,
## else OSV's, else the fallback in scripts/audit-dependencies (AUDIT_STRICT=true: stricter).
## Fallback kept: here PyPI answers /pypi/<name>/json but 404s /pypi/<name>/<version>/json, and api.osv.dev does not resolve.
AUDIT_LOCK ?= $(LOCK)
audit: setup
	$(PY) scripts/audit-dependencies $(AUDIT_LOCK)

## Rewrite the lock files from pyproject.toml (base first; dev keeps base's pins).
## Pins already in them stay unless pyproject needs otherwise; LOCK_ARGS=--upgrade takes the newest.
lock: setup
	$(UV_LOCK) -q -o requirements/base.txt $(LOCK_ARGS)
	$(UV_LOCK) -q --extra dev -c requirements/base.txt -o requirements/dev.txt $(LOCK_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
