"""Self-healing: element fingerprints, candidate scoring, `healed` findings and the diff writer.

A heal replaces a pinned act selector that failed for this run only; it is recorded as a `healed`
finding (`events.Heal`), and `heal.patch` turns a report's heals into a unified diff of the spec
files that a team can review and keep.
"""
