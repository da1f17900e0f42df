"""Run games: state, legal actions, apply, flow, triggers, logs."""
