"""Tournaments: Swiss, arena and round robin for 2 to 4 players, real time or turn-based
(``docs/tournaments.md``); the formats' pairing and standings are ``omega.pairing``."""
