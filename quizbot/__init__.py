"""The application: settings from the environment, wiring, and the ``quizbot`` command."""
