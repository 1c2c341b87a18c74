"""`python -m flowwalk`: the console script's entry, the same start (entry.py)."""

from flowwalk.entry import main

main()
