"""Watching: the live list of games being played now (the public ones, highest rated first),
opened as a spectator without a link, and each player's choice to be left off that list."""
