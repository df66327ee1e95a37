# Crosswire web image: daphne serving HTTP and WebSockets, static files collected and served by WhiteNoise.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app

# Dependencies first, so code changes reuse this layer.
ARG UV_VERSION=0.13.9
COPY requirements/base.txt requirements/base.txt
RUN pip install "uv==${UV_VERSION}" \
    && uv pip install --system --no-cache -r requirements/base.txt

COPY . .

# Production settings refuse to load without their secrets; these throwaway values exist only for this build step
# (collectstatic reads no secret). The real ones come from the environment at run time.
RUN CROSSWIRE_ENV=production \
    SECRET_KEY=collectstatic-only-this-is-not-used-at-run-time-0000000000 \
    ALLOWED_HOSTS=localhost \
    CROSSWIRE_ENCRYPTION_KEY=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= \
    python manage.py collectstatic --noinput

RUN useradd --system --uid 10001 --home-dir /app crosswire \
    && mkdir -p /app/data \
    && chown crosswire /app/data
USER crosswire

ENV CROSSWIRE_ENV=production
EXPOSE 8000

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]

# --proxy-headers: take the client address from X-Forwarded-For set by the reverse proxy.
CMD ["daphne", "--bind", "0.0.0.0", "--port", "8000", "--proxy-headers", "playground.asgi:application"]
