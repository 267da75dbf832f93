"""The daily question beside the engine: each chat's setting and the scheduled post of its
question (:mod:`bot.daily.service`), the choice of the day's question without repeats
(:mod:`bot.daily.choice`), the members' streaks (:mod:`bot.daily.streaks`), what ``/daily``
asks for (:mod:`bot.daily.request`), what it shows (:mod:`bot.daily.views`) and its strings
(:mod:`bot.daily.texts`). The question itself is a one-question round of the daily kind
(:mod:`bot.rounds`)."""
