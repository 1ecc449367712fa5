"""The robustness run of `make fuzz` against any A2A server (scripts/robustness.py): the run itself, bounded and paced
(campaign.py), the search for each finding's smallest request (shrink.py), its reproducer as a curl line (curl.py),
what keeps the run safe (safety.py) and the report (report.py)."""
