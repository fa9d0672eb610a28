"""
Settings for factcheck, read from the environment.

Every variable is documented in the README's configuration table. Defaults are
safe for production: DEBUG is off unless asked for, and with DEBUG off the app
refuses to start without a real SECRET_KEY and ALLOWED_HOSTS.
"""

import os
import re
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean: use true/false, yes/no, on/off or 1/0."
    )


def env_list(name):
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


DEBUG = env_bool("DEBUG")

# Only ever used with DEBUG on; production refuses it below.
DEVELOPMENT_SECRET_KEY = "django-insecure-factcheck-development-key-do-not-deploy"  # noqa: S105
SECRET_KEY = os.environ.get("SECRET_KEY") or DEVELOPMENT_SECRET_KEY
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")

if not DEBUG:
    if SECRET_KEY == DEVELOPMENT_SECRET_KEY:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off, set the SECRET_KEY environment "
            "variable to a long random string (for example the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`), "
            "or set DEBUG=true for local development."
        )
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "ALLOWED_HOSTS is empty. With DEBUG off, set the ALLOWED_HOSTS "
            "environment variable to the comma-separated host names the site is "
            "served on (for example factcheck.example.org), or set DEBUG=true for "
            "local development."
        )
elif not ALLOWED_HOSTS:
    ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# An htmx request with a stale token gets a sentence, not Django's page inside a part.
CSRF_FAILURE_VIEW = "factcheck.auth.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tasks_db",
    "factcheck",
    "sources",
    "claims",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: Accept-Language, or the cookie the language menu sets.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in user's saved language over the cookie's or the browser's
    # (factcheck/preferences.py).
    "factcheck.middleware.UserLanguageMiddleware",
    # Django's, answering an htmx request whose session has ended with 401 and a sentence.
    "factcheck.auth.LoginRequiredMiddleware",
    "factcheck.middleware.LineBreaksMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "factcheck.middleware.VaryOnHtmxMiddleware",
    # A signed-in user's pages are theirs and asked for again (Cache-Control), unless a view says.
    "factcheck.middleware.DeskCacheControlMiddleware",
    # Our refusals (factcheck/exceptions.py) raised by views, answered with their status codes.
    "factcheck.middleware.RefusalMiddleware",
]

# --- Two-factor authentication and request logs (issue 37; factcheck/two_factor.py,
# factcheck/request_log.py). Added here rather than in the lists above so that the
# lists stay as they were; the positions are what matters:
INSTALLED_APPS += [
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
]
# First, so that a request's logged duration and status are the whole of it.
MIDDLEWARE.insert(0, "factcheck.request_log.RequestLogMiddleware")
# request.user.is_verified(): right after the user is known.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.auth.middleware.AuthenticationMiddleware") + 1,
    "django_otp.middleware.OTPMiddleware",
)
# An unverified session reaches only the code page (or the setup page, if required).
MIDDLEWARE.insert(
    MIDDLEWARE.index("factcheck.auth.LoginRequiredMiddleware") + 1,
    "factcheck.two_factor.TwoFactorMiddleware",
)
# REQUIRE_TWO_FACTOR: every desk user must have an authenticator app; one without is
# sent to set it up after logging in. Off, only those who set one up are asked a code.
REQUIRE_TWO_FACTOR = env_bool("REQUIRE_TWO_FACTOR")
# The name the authenticator app shows beside the account.
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "factcheck")
# --- end of two-factor and request logs.

ROOT_URLCONF = "factcheck.urls"
WSGI_APPLICATION = "factcheck.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "factcheck.context_processors.navigation",
            ],
        },
    },
]

# SQLite by default, tuned for a small team: WAL lets readers work while one
# writer writes, IMMEDIATE transactions take the write lock up front (no
# "database is locked" half-way through a transaction), and the busy timeout
# makes a second writer wait instead of failing.
SQLITE_PATH = Path(os.environ.get("SQLITE_PATH") or BASE_DIR / "var" / "db.sqlite3")
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    database = dj_database_url.parse(DATABASE_URL)
    if database["ENGINE"] == "django.db.backends.postgresql":
        from psycopg_pool import ConnectionPool

        # The pool keeps connections; Django must not keep its own on top.
        database["CONN_MAX_AGE"] = 0
        # With the database gone, a request waits at most DATABASE_POOL_TIMEOUT for a
        # connection and then gets the 503 page (factcheck/database_outage.py); connections
        # are checked as they leave the pool, so the ones a restart killed are dropped,
        # and a reconnection that keeps failing gives up as soon, so that the next
        # request tries afresh instead of waiting out a long backoff.
        pool_timeout = float(os.environ.get("DATABASE_POOL_TIMEOUT", "5"))
        # Parameters travel apart from the query text, so a query a connection runs
        # again is prepared: PostgreSQL plans it once per pooled connection, not on
        # every request (planning was most of a small query's time: 0.4 of the 0.54 ms
        # that reading a user's permissions took). A pooler in transaction mode that
        # cannot keep prepared statements needs DATABASE_PREPARE_THRESHOLD="" (off).
        prepare_threshold = os.environ.get("DATABASE_PREPARE_THRESHOLD", "2")
        database.setdefault("OPTIONS", {}).update(
            server_side_binding=True,
            prepare_threshold=int(prepare_threshold) if prepare_threshold else None,
        )
        database["OPTIONS"]["pool"] = {
            "min_size": int(os.environ.get("DATABASE_POOL_MIN_SIZE", "2")),
            "max_size": int(os.environ.get("DATABASE_POOL_MAX_SIZE", "10")),
            "timeout": pool_timeout,
            "reconnect_timeout": pool_timeout,
            "check": ConnectionPool.check_connection,
        }
else:
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    database = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": SQLITE_PATH,
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA busy_timeout=20000;"
                "PRAGMA foreign_keys=ON;"
            ),
        },
    }
DATABASES = {"default": database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache holds rate-limit counters and the corrections chain's check. With
# several server processes they must share it: set REDIS_URL.
REDIS_URL = os.environ.get("REDIS_URL", "")


if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        },
        # Rendered source texts (a 1 MB source is 1.3 MB of HTML): their own alias, so
        # that they cannot push the rate-limit counters out of the default cache.
        "rendered": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "rendered",
        },
    }
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "rendered": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "rendered",
            "OPTIONS": {"MAX_ENTRIES": 64},
        },
    }

TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "claims:case_list"
LOGOUT_REDIRECT_URL = "login"
# Repeated failed logins are refused for a while (factcheck/auth.py), counted per
# account and per client address in the cache (share it with REDIS_URL).
# TRUST_X_FORWARDED_FOR: behind exactly one proxy that appends the client's
# address to X-Forwarded-For, count that address instead of the proxy's.
TRUST_X_FORWARDED_FOR = env_bool("TRUST_X_FORWARDED_FOR")
# A session lasts SESSION_COOKIE_AGE seconds (12 hours) from when it was last
# written, normally the login; a password change ends the user's other sessions.
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", 12 * 60 * 60))
# With a cache that every server process shares (Redis), sessions are read from
# it and written through to the database: one query fewer on every page. A
# per-process cache would let a session that logged out in one process live on
# in the others, so without Redis they stay in the database alone.
if REDIS_URL:
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
PASSWORD_RESET_TIMEOUT = 60 * 60 * 3

LANGUAGE_CODE = "en"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
# The interface's languages. A desk user's choice is kept on their account
# (factcheck.models.Preferences); anyone else gets their browser's Accept-Language.
# The catalogues are in locale/, compiled at set-up with Babel (pure Python).
USE_I18N = True
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
    ("fr", "Français"),
    ("ar", "العربية"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language menu's cookie, for visitors who are not signed in: sent like the session's.
LANGUAGE_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
FORMAT_MODULE_PATH = ["factcheck.formats"]
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "var" / "static")
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "var" / "media")
# WhiteNoise serves static files in production from STATIC_ROOT (filled by
# collectstatic); in development it serves them straight from the app folders.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Uploads live in MEDIA_ROOT, or with STORAGE_BACKEND=s3 in an S3-compatible bucket
# (django-storages), which several app servers and workers can share. boto3 reads the
# credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or its other sources).
STORAGE_BACKEND = os.environ.get("STORAGE_BACKEND", "filesystem")
if STORAGE_BACKEND == "filesystem":
    DEFAULT_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
elif STORAGE_BACKEND == "s3":
    if not os.environ.get("AWS_STORAGE_BUCKET_NAME"):
        raise ImproperlyConfigured(
            "STORAGE_BACKEND=s3 needs AWS_STORAGE_BUCKET_NAME: the bucket that holds the uploads."
        )
    DEFAULT_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["AWS_STORAGE_BUCKET_NAME"],
            "endpoint_url": os.environ.get("AWS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("AWS_S3_REGION_NAME") or None,
            "location": os.environ.get("AWS_LOCATION", ""),
            # Like the file system: never overwrite a stored upload; files stay private
            # and are served only through the app's download view.
            "file_overwrite": False,
            "default_acl": "private",
            "querystring_auth": True,
        },
    }
else:
    raise ImproperlyConfigured(
        f"STORAGE_BACKEND={STORAGE_BACKEND!r} is not known: use filesystem (the default) or s3."
    )
STORAGES = {
    "default": DEFAULT_STORAGE,
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Upload limits. Large files are streamed to disk by Django's upload handlers.
SOURCE_UPLOAD_MAX_BYTES = int(os.environ.get("SOURCE_UPLOAD_MAX_BYTES", 25 * 1024 * 1024))
# Text extraction runs in a child process held to these limits, so that a
# hostile file can neither hang nor exhaust the worker.
EXTRACTION_TIME_LIMIT_SECONDS = float(os.environ.get("EXTRACTION_TIME_LIMIT_SECONDS", 60))
EXTRACTION_MEMORY_LIMIT_MB = int(os.environ.get("EXTRACTION_MEMORY_LIMIT_MB", 768))
# "auto": in bubblewrap when it runs here, else with only the empty environment and the
# limits (one warning a process); "bwrap": refuse to extract without it; "none": never.
EXTRACTION_SANDBOX = os.environ.get("EXTRACTION_SANDBOX", "auto")
# A PDF is refused before PDFium reads it when it has more pages than this, or a stream
# that inflates past EXTRACTION_PDF_MAX_STREAM_MB (unset: an eighth of the memory limit).
EXTRACTION_PDF_MAX_PAGES = int(os.environ.get("EXTRACTION_PDF_MAX_PAGES", 5000))
EXTRACTION_PDF_MAX_STREAM_MB = (
    int(os.environ["EXTRACTION_PDF_MAX_STREAM_MB"])
    if os.environ.get("EXTRACTION_PDF_MAX_STREAM_MB")
    else None
)
# Scans and images are read by Tesseract in these languages (its "+"-joined codes): the
# interface's languages. Each needs its Debian package (tesseract-ocr-spa, ...).
OCR_LANGUAGES = os.environ.get("OCR_LANGUAGES", "eng+spa+por+fra+ara")
# A scanned PDF of more pages than this is refused rather than read by OCR for an hour.
OCR_MAX_PAGES = int(os.environ.get("OCR_MAX_PAGES", 50))
# Capturing a source by URL: at most this many seconds for the whole fetch (redirects
# included) and this many redirects; the bytes are capped as an upload's are.
URL_FETCH_TIMEOUT_SECONDS = float(os.environ.get("URL_FETCH_TIMEOUT_SECONDS", 20))
URL_FETCH_MAX_REDIRECTS = int(os.environ.get("URL_FETCH_MAX_REDIRECTS", 5))
# Networks the fetch may reach although they are not public. Empty in production: only
# the test settings name the loopback test server (sources.fetching explains the guard).
URL_FETCH_ALLOWED_ADDRESSES: list[str] = []
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# Pasted source text arrives as a form field, not a file: allow a long article.
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024

# Mail goes through Django's MAILERS. In development without SMTP_HOST it is
# printed to the console; in production it goes to SMTP_HOST, or to a local
# mail transfer agent on localhost:25 when none is named.
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "factcheck@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
if DEBUG and not os.environ.get("SMTP_HOST"):
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
else:
    smtp_tls = env_bool("SMTP_USE_TLS", default=bool(os.environ.get("SMTP_HOST")))
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ.get("SMTP_HOST") or "localhost",
                "port": int(os.environ.get("SMTP_PORT") or (587 if smtp_tls else 25)),
                "username": os.environ.get("SMTP_USER", ""),
                "password": os.environ.get("SMTP_PASSWORD", ""),
                "use_tls": smtp_tls,
                "timeout": 10,
            },
        }
    }

# The site's address, for the links in mail: the task worker sends it with no
# request to take a host from. Required in production, where a wrong one would
# send every reviewer a link that leads nowhere.
SITE_URL = (os.environ.get("SITE_URL") or ("http://127.0.0.1:8000" if DEBUG else "")).rstrip("/")
if not SITE_URL:
    raise ImproperlyConfigured(
        "SITE_URL is not set. With DEBUG off, set the SITE_URL environment variable to "
        "the address the site is served at (for example https://factcheck.example.org), "
        "for the links in mail, or set DEBUG=true for local development."
    )
if not re.fullmatch(r"https?://[^/?#\s]+(/[^?#\s]*)?", SITE_URL):
    raise ImproperlyConfigured(
        f"SITE_URL={SITE_URL!r} is not a web address: give one such as "
        "https://factcheck.example.org (http or https, a host, no query)."
    )

# Security. Secure cookies, HSTS and the HTTPS redirect follow DEBUG so that
# the development server works over plain HTTP.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# Load balancers probe /healthz over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # readyz: issue 37
SECURE_HSTS_SECONDS = 0 if DEBUG else int(os.environ.get("SECURE_HSTS_SECONDS", 31_536_000))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy on every response, in development too so that the tests
# and `make run` see what production sends: our own scripts, styles and images
# only, no inline script or style (htmx's indicator style is off in base.html),
# no plugins, no framing. JSON-LD <script type="application/ld+json"> is data and
# is not affected. A view that sets its own policy (the sandboxed download of an
# original file) keeps it.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
if env_bool("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Logs, Sentry and readiness (issue 37; factcheck/logging.py, docs/operations.md).
# In production each log record is one JSON object on a line (LOG_FORMAT=json), for a
# log shipper to parse; in development plain text. REQUEST_LOG: one line per request
# (the development server prints its own, so it is off with DEBUG).
LOG_FORMAT = os.environ.get("LOG_FORMAT") or ("text" if DEBUG else "json")
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r} is not known: use text or json.")
REQUEST_LOG = env_bool("REQUEST_LOG", default=not DEBUG)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "factcheck.logging.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
# Errors (unhandled exceptions, logged errors) go to Sentry when SENTRY_DSN is set;
# never with personal data (send_default_pii=False: no user, cookies or addresses).
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from factcheck.logging import init_sentry

    init_sentry(
        dsn=SENTRY_DSN,
        environment=os.environ.get("SENTRY_ENVIRONMENT") or ("development" if DEBUG else None),
        release=os.environ.get("SENTRY_RELEASE") or None,
    )
# /readyz answers 503 when the oldest task waiting to run has waited longer than this.
READINESS_MAX_TASK_WAIT_SECONDS = int(os.environ.get("READINESS_MAX_TASK_WAIT_SECONDS", 600))
# The worker's housekeeping (factcheck/tasks.py): how often, and how long finished
# task results are kept.
HOUSEKEEPING_INTERVAL_SECONDS = int(os.environ.get("HOUSEKEEPING_INTERVAL_SECONDS", 6 * 60 * 60))
TASK_RESULT_RETENTION_DAYS = int(os.environ.get("TASK_RESULT_RETENTION_DAYS", 30))
# --- end of logs, Sentry and readiness.
