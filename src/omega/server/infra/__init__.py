"""What every feature of the server stands on and none of them is: the database engine and
the due-work queue, notifications between processes, metrics, logs, rate limits, HTTP
middleware and the socket transport.  Nothing here imports a feature package."""
