"""The platform-neutral quiz engine: quiz format, engine, storage and interface strings."""
