"""``python -m bot``: the same as the ``quizbot`` command."""

from quizbot.cli import main

raise SystemExit(main())
