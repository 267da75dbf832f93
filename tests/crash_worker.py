"""A busy quiz process for crash tests: prints ACK lines for answers the engine acknowledged.

Run as ``python -m tests.crash_worker DB_PATH USERS``; the test kills it with SIGKILL.
"""

from __future__ import annotations

import asyncio
import sys

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from bot.views import AnswerOutcome, Participant
from tests.conftest import QUIZ_DIR, SEED_QUIZ


async def user_loop(engine: QuizEngine, who: Participant) -> None:
    while True:
        question = (await engine.start(who, SEED_QUIZ)).question
        while question is not None:
            feedback = await engine.answer_by_position(who, question.attempt_id, question.number, 0)
            if feedback.outcome is AnswerOutcome.ACCEPTED:
                # Printed only once the engine returned, i.e. after the commit.
                print(f"ACK {question.attempt_id} {question.question_id}", flush=True)
            question = feedback.next_question


async def main(path: str, users: int) -> None:
    catalog, _ = QuizCatalog.from_paths([QUIZ_DIR])
    storage = SQLiteStorage(path)
    await storage.open()
    engine = QuizEngine(catalog, storage)
    print("READY", flush=True)
    await asyncio.gather(*(user_loop(engine, Participant("crash", f"u{n}")) for n in range(users)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
