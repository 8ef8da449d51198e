"""Durable-execution test programs: a worker process the tests start, kill and restart."""
