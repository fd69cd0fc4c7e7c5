"""What players do around a game: a table's chat and rematches (and, next, friends, blocks
and reports)."""
