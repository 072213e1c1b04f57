# relpos for a class: one Streamlit server per container, listening on port 8501.
#   docker build -t relpos .
#   docker run --rm -p 8501:8501 relpos          # then open http://<host>:8501
# Several replicas: see docs/hosting.md.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false

# An unprivileged user runs the app; the code stays owned by root, read-only to it.
RUN groupadd --system relpos \
    && useradd --system --gid relpos --create-home --home-dir /home/relpos --shell /usr/sbin/nologin relpos

WORKDIR /app

# Dependencies first, so editing the app does not reinstall them; in the same layer,
# what the app never loads goes again (deploy/trim-dependencies.sh says what and why).
COPY requirements.txt deploy/trim-dependencies.sh ./
RUN pip install -r requirements.txt \
    && sh trim-dependencies.sh \
    && rm trim-dependencies.sh

# The app itself (.dockerignore keeps tests, benchmarks and tooling out), then the
# server configuration in place of the developer's one.
COPY . ./
COPY deploy/streamlit.toml .streamlit/config.toml
# Streamlit's frontend files compressed once, brotli and gzip, while /app is still
# writable (relpos/static/weight.py serves them from data/cache; ~1 min of one core).
RUN python -m relpos.server.frontend

USER relpos
EXPOSE 8501

# Healthy once the server answers /_stcore/health ("ok") and its class store can be written
# (/relpos/health: 503 while it is read-only, full or unreachable); the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(any(urllib.request.urlopen('http://127.0.0.1:8501' + path, timeout=4).read().strip() != b'ok' for path in ('/_stcore/health', '/relpos/health')))"]

CMD ["python", "-m", "streamlit", "run", "app.py"]
