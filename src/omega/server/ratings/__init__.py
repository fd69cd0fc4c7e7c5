"""Ratings: Glicko-2 ratings of accounts, updated when a rated game ends (a hook of the
table core), and the routes that show them."""
