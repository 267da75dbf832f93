# The production image, for Fly.io and any container platform: the locked dependencies
# (requirements.txt, hashes checked), then the project itself with nothing resolved afresh.
#   docker build -t quizbot . && docker run -e TELEGRAM_BOT_TOKEN=... -v quizbot-data:/data quizbot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Its own layer: a code change does not reinstall the dependencies.
COPY requirements.txt ./
RUN pip install --no-deps -r requirements.txt

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY adapters ./adapters
COPY quizbot ./quizbot
COPY schema ./schema
RUN pip install --no-deps . && rm -rf build ./*.egg-info
COPY quizzes ./quizzes

# The bot runs unprivileged; /data is the one place it writes (mount a volume there, or set
# DATABASE_URL to PostgreSQL: the container's own disk is lost on every redeploy).
RUN useradd --create-home --uid 10001 quizbot && mkdir /data && chown quizbot /data
USER quizbot

# PORT set: `quizbot run` serves GET /healthz (and Telegram's webhook, with WEBHOOK_URL).
ENV PORT=8080 \
    QUIZ_DIR=/app/quizzes \
    DATABASE_URL=sqlite:////data/quizbot.db
EXPOSE 8080

# No curl in the slim image: Python asks. A 503 (database down) or no answer fails the check.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8080') + '/healthz', timeout=8)"]

CMD ["quizbot", "run"]
