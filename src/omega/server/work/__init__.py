"""Background work: the scheduler of due work, the computer players' pool, hints, reviews,
and ``omega worker``, the process that does this work apart from the web servers."""
