"""Puzzles: positions from the project's own games where one turn wins or saves much more than
every other, played on the puzzle page, with Glicko-2 ratings for the players and the puzzles."""
