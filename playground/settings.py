"""Crosswire settings, read from the environment.

Two modes, chosen by ``CROSSWIRE_ENV``:

- ``local`` (default): DEBUG on, an SQLite file under ``data/``, the in-memory channel layer, a secret key generated
  once and kept in ``data/``. Nothing to configure.
- ``production``: DEBUG off; ``SECRET_KEY``, ``ALLOWED_HOSTS`` and ``CROSSWIRE_ENCRYPTION_KEY`` are required, and the
  defaults pass ``manage.py check --deploy`` without warnings.

``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` switch to the real services in either mode. Every secret can also be
read from a file named by ``<NAME>_FILE`` (Docker and Kubernetes secrets).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from playground.env import env_bool, env_int, env_json_object, env_list, env_secret, env_str

BASE_DIR = Path(__file__).resolve().parent.parent


def _local_secret_key(data_dir: Path) -> str:
    """A random key created on first use and kept, so sessions survive restarts without a key in the repository."""
    path = data_dir / "secret_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / f".secret_key.{os.getpid()}"
        tmp.write_text(secrets.token_urlsafe(50))
        tmp.chmod(0o600)
        try:
            # link() refuses to overwrite, so two processes starting together agree on one key.
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


def _derived_fernet_key(secret_key: str) -> str:
    digest = hashlib.sha256(b"crosswire-encryption-key:" + secret_key.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


def _check_fernet_key(key: str) -> str:
    try:
        raw = base64.urlsafe_b64decode(key.encode())
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise ImproperlyConfigured(
            "CROSSWIRE_ENCRYPTION_KEY must be 32 url-safe base64-encoded bytes; generate one with "
            '`python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`'
        )
    return key


CROSSWIRE_ENV = env_str("CROSSWIRE_ENV", "local")
if CROSSWIRE_ENV not in {"local", "production"}:
    raise ImproperlyConfigured(f"CROSSWIRE_ENV must be 'local' or 'production', got {CROSSWIRE_ENV!r}")
PRODUCTION = CROSSWIRE_ENV == "production"

DEBUG = env_bool("DEBUG", not PRODUCTION)
DATA_DIR = Path(env_str("CROSSWIRE_DATA_DIR", str(BASE_DIR / "data")))

SECRET_KEY = env_secret("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) is required when CROSSWIRE_ENV=production")
    SECRET_KEY = _local_secret_key(DATA_DIR)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS is required when CROSSWIRE_ENV=production (comma-separated host names)")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's, so `manage.py runserver` speaks WebSocket.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "axes",
    "playground",
]

MIDDLEWARE = [
    # First, so load balancer probes skip host validation and the HTTPS redirect.
    "playground.middleware.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "playground.middleware.NotFoundPageMiddleware",
    # Last, as django-axes asks: it answers a locked-out sign-in with the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "playground.urls"
ASGI_APPLICATION = "playground.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "playground.shell.context_processors.shell",
            ],
        },
    },
]

DATABASE_URL = env_secret("DATABASE_URL")
if DATABASE_URL:
    # Persistent connections are off by default: under ASGI every request may run in a fresh thread.
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 0), conn_health_checks=True)
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "crosswire.sqlite3",
            "OPTIONS": {
                # WAL and IMMEDIATE let daphne's worker threads (and a second process) write without "database is
                # locked" errors.
                "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
            # Kept open (10 min by default), unlike PostgreSQL's: opening one registers Django's SQL functions and
            # runs the PRAGMAs, and closing the last one checkpoints the whole WAL, a stall for every stream of the
            # process each time a socket opens (its session and snapshot reads close the thread's connection).
            "CONN_MAX_AGE": env_int("CONN_MAX_AGE", 600),
        }
    }
    DATA_DIR.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_secret("REDIS_URL")
# The in-memory layer drops group messages silently once `capacity` is reached (default 100), so raise it.
CHANNEL_LAYER_CAPACITY = env_int("CHANNEL_LAYER_CAPACITY", 100_000)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 sets a read timeout shorter than channels-redis's blocking receive, which then fails on
            # every idle socket (channels_redis issue #422): no read timeout, the blocking command has its own.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
                "capacity": CHANNEL_LAYER_CAPACITY,
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "playground.shell.memory_layer.InMemoryChannelLayer",
            "CONFIG": {"capacity": CHANNEL_LAYER_CAPACITY},
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out username and address before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username from one address that
# pair is locked out for the cool-off time, answered 429 with templates/registration/locked_out.html. Other people
# and other addresses are unaffected, so nobody can lock a colleague out from elsewhere. Behind a proxy, daphne's
# --proxy-headers (as in the Dockerfile) gives the client's address.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
LOGIN_REDIRECT_URL = "playground"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Only deployments collect static files; local runs serve them from static/ and the apps (WhiteNoise finders).
STATIC_ROOT = env_str("STATIC_ROOT") or (str(BASE_DIR / "staticfiles") if PRODUCTION else None)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed names need `collectstatic`, which the Docker image runs; local runs serve straight from static/.
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage",
    },
}
WHITENOISE_USE_FINDERS = not PRODUCTION

# Security. Production defaults pass `check --deploy`; TLS usually ends at a proxy in front of the app, which must
# send X-Forwarded-Proto (set TRUST_X_FORWARDED_PROTO=1 then).
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
# A Content-Security-Policy every page satisfies: no inline script or style anywhere (htmx is told not to inject its
# indicator style, see templates/_head.html), nothing loaded from another origin, no framing. The browser tests fail
# on any violation the console reports.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],  # includes ws: and wss: of this origin (CSP Level 3)
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", PRODUCTION)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", PRODUCTION)
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 14 * 24 * 3600)
# Django's database sessions, with the read every socket and socket action makes built once (same table, encoding).
SESSION_ENGINE = "playground.teams.sessions"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "{levelname} {name}: {message}", "style": "{"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # runserver prints its own access log; propagating would print every request twice.
    "loggers": {
        "django.channels.server": {"handlers": ["console"], "propagate": False},
        # django-axes reports every sign-in at INFO; failures and lockouts are warnings, and those are kept.
        "axes": {"level": "WARNING"},
    },
}

# Crosswire's own settings.

# Provider API keys that users save are encrypted with this Fernet key. Rotating it makes saved keys unreadable.
CROSSWIRE_ENCRYPTION_KEY = env_secret("CROSSWIRE_ENCRYPTION_KEY")
if not CROSSWIRE_ENCRYPTION_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured(
            "CROSSWIRE_ENCRYPTION_KEY (or CROSSWIRE_ENCRYPTION_KEY_FILE) is required when CROSSWIRE_ENV=production"
        )
    CROSSWIRE_ENCRYPTION_KEY = _derived_fernet_key(SECRET_KEY)
CROSSWIRE_ENCRYPTION_KEY = _check_fernet_key(CROSSWIRE_ENCRYPTION_KEY)

# Base URL prefixes that user-defined (OpenAI-compatible) endpoints may point at, so a shared instance cannot be
# used to reach internal hosts. "*" allows any URL; the default allows any only for a local, single-user run.
CROSSWIRE_ALLOWED_BASE_URLS = env_list("CROSSWIRE_ALLOWED_BASE_URLS", [] if PRODUCTION else ["*"])

# Where the app reaches its own built-in provider simulator (mounted at /sim by playground.asgi).
CROSSWIRE_SIMULATOR_URL = env_str("CROSSWIRE_SIMULATOR_URL", "http://127.0.0.1:8000/sim").rstrip("/")
# Who may use the simulator mounted at /sim. Locally anyone (docs/simulator.md shows SDKs pointed at it with any key).
# In production it is the app's own: its runs present CROSSWIRE_SIMULATOR_KEY (derived from SECRET_KEY unless set)
# and the mount refuses any other request, so /sim is no open service holding connections for strangers.
CROSSWIRE_SIMULATOR_OPEN = env_bool("CROSSWIRE_SIMULATOR_OPEN", not PRODUCTION)
CROSSWIRE_SIMULATOR_KEY = env_secret("CROSSWIRE_SIMULATOR_KEY") or (
    "sim-" + hashlib.sha256(f"crosswire-simulator:{SECRET_KEY}".encode()).hexdigest()[:40]
    if not CROSSWIRE_SIMULATOR_OPEN
    else "simulator"
)
# Delay between simulated stream chunks, so streaming is visible in the browser.
CROSSWIRE_SIMULATOR_PACE_MS = env_int("CROSSWIRE_SIMULATOR_PACE_MS", 30)

# The stdio MCP servers teams may choose from (playground/mcp/): a JSON object mapping a name to
# {"command": ["npx", "-y", "some-mcp-server"], "env": {"NAME": "value"}, "cwd": "/optional"}. Only the administrator
# sets commands, here or in the file CROSSWIRE_MCP_STDIO_SERVERS_FILE; the UI never takes one. Each process gets
# PATH, HOME and a few more of the server's variables plus its "env", never Crosswire's own secrets.
CROSSWIRE_MCP_STDIO_SERVERS = env_json_object("CROSSWIRE_MCP_STDIO_SERVERS")

# Python modules whose @tool functions become built-in tools (playground/tools/modules.py), as comma-separated import
# paths; the example tools are one such module, so a list without it drops them. A module that cannot be loaded
# stops the start. Each call may take CROSSWIRE_TOOL_TIMEOUT seconds (a tool can ask for another limit).
CROSSWIRE_TOOL_MODULES = env_list("CROSSWIRE_TOOL_MODULES", ["playground.tools.examples"])
CROSSWIRE_TOOL_TIMEOUT = env_int("CROSSWIRE_TOOL_TIMEOUT", 10)
if CROSSWIRE_TOOL_TIMEOUT < 1:
    raise ImproperlyConfigured(f"CROSSWIRE_TOOL_TIMEOUT must be at least 1 second, got {CROSSWIRE_TOOL_TIMEOUT}")

# Hard limits against abuse and accidents, each refused with a message naming it (docs/deploy.md lists them).
# Nesting deeper than this in any JSON a user sends (schemas, examples, imports, socket frames) is refused before it
# is parsed any further, so no handler can hit Python's recursion limit.
CROSSWIRE_MAX_JSON_DEPTH = env_int("CROSSWIRE_MAX_JSON_DEPTH", 64)
# A tool's parameter schema, and each canned answer, as text.
CROSSWIRE_MAX_SCHEMA_BYTES = env_int("CROSSWIRE_MAX_SCHEMA_BYTES", 256 * 1024)
CROSSWIRE_MAX_CANNED_BYTES = env_int("CROSSWIRE_MAX_CANNED_BYTES", 256 * 1024)
# An uploaded or pasted tool-set import.
CROSSWIRE_MAX_IMPORT_BYTES = env_int("CROSSWIRE_MAX_IMPORT_BYTES", 2 * 1024 * 1024)
# One message typed in the composer (its text; attached images have limits of their own, below). Below daphne's
# 1 MiB WebSocket limit, so it is refused with a message instead of the socket dropping it.
CROSSWIRE_MAX_MESSAGE_BYTES = env_int("CROSSWIRE_MAX_MESSAGE_BYTES", 512 * 1024)
# Images attached to one message: each at most this many bytes once decoded (5 MiB, Anthropic's limit per image),
# and at most this many. Their base64 (4/3 of the bytes) would pass daphne's 1 MiB limit on an incoming WebSocket
# message (--websocket-max-message-size, which closes the socket), and raising that would have to be done in every
# way daphne is started (the image's CMD, runserver, the tests' servers). Instead the page sends a message that big
# as `part` messages of at most 64 Ki characters each, and the consumer puts them back together up to the text and
# image limits together (docs/websocket.md). A `send` never crosses the channel layer (the consumer that receives
# it starts the turn), so neither Redis nor the in-memory layer sees the whole.
CROSSWIRE_MAX_IMAGE_BYTES = env_int("CROSSWIRE_MAX_IMAGE_BYTES", 5 * 1024 * 1024)
CROSSWIRE_MAX_IMAGES = env_int("CROSSWIRE_MAX_IMAGES", 4)
# The largest WebSocket message the server sends; bigger frames are sent in parts (docs/websocket.md).
CROSSWIRE_MAX_FRAME_BYTES = env_int("CROSSWIRE_MAX_FRAME_BYTES", 256 * 1024)
# A run's frames reach a socket at most once per this many milliseconds (a 60 Hz display frame, rounded up): a
# provider streaming 500 deltas/s costs the server and the browser under 60 messages a second, not 500. 0 sends on
# every step.
CROSSWIRE_FRAME_INTERVAL_MS = env_int("CROSSWIRE_FRAME_INTERVAL_MS", 17)
# How many frames early a message may go (playground.chat.registry): after the loop was busy, a 50 Hz stream catches
# up at once instead of a frame at a time; the average stays one message a frame.
CROSSWIRE_FRAME_SLACK = env_int("CROSSWIRE_FRAME_SLACK", 2)
# Model names saved on one endpoint (typed or fetched).
CROSSWIRE_MAX_MODEL_NAMES = env_int("CROSSWIRE_MAX_MODEL_NAMES", 2000)
# Each web process beats and recovers the runs of dead ones (playground.chat.processes). Off only in tests that
# drive the app in-process, where no process is really serving.
CROSSWIRE_RUN_WATCHDOG = env_bool("CROSSWIRE_RUN_WATCHDOG", True)
# Runs one user may have in flight at once, across conversations.
CROSSWIRE_MAX_RUNS_PER_USER = env_int("CROSSWIRE_MAX_RUNS_PER_USER", 4)
