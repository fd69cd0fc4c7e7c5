"""Follows and blocks between accounts: the friends list (who is online, who plays where),
and the block that keeps two players apart in quick play, chat and challenges."""
