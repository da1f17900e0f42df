"""Command-line tools: play, bots, replay, scenarios, benchmark."""
