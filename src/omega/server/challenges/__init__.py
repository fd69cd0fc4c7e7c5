"""Challenges: one player asks another (or whoever opens the link first) to a game with set
rules; accepted, the table is made with both seated."""
