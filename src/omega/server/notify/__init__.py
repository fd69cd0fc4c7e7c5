"""Reaching players away from the site: what is worth telling a player (a notice), and the
channels that carry it to them (mail, Web Push), each delivery queued as due work so that a
crash or a dead mail server loses none and sends none twice."""
