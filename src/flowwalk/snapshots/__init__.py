"""Baselines beside the spec (`<spec>.snapshots/<name>.yml|png`) and the pure comparisons.

`store.py` decides what a check does with its baseline (compare, write it, or fail asking for
`--update-snapshots`) and writes the evidence into the report folder; `images.py` compares two
PNGs (pixelmatch); `aria.py` diffs two aria snapshots as text. Nothing here touches a browser:
`browser/capture.py` takes the snapshots, `walk/snapshots.py` puts the two together.
"""
