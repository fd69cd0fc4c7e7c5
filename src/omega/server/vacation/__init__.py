"""Vacation for turn-based games: a yearly allowance per account, taken by the player or
automatically when a flag is near, that pauses the player's turn-based clocks."""
