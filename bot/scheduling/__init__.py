"""Time beside the engine: time zones, scheduled jobs on the database, and the outbox of
outgoing messages that platforms post from (see docs/scheduling.md)."""
