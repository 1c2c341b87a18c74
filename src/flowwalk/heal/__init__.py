"""One meaning of a target, and self-healing: element fingerprints, candidate scoring, `healed`
findings and the diff writer.

`heal.meaning` reads a person's words ("the first book's checkbox") and scores page elements
against them, `heal.decide` ranks and decides, `heal.find` reads a page through `Reader`
(browser/records.py) and finds the element, with or without a pinned selector (resolving a target
with no selector is healing without a fingerprint), and `heal.mend` mends any selector as renames
of its ids and classes. A heal replaces a selector that failed for this run only; it is one
`heal.mend.Healed` and one record (`events.Heal`, a `healed` finding), and `heal.patch` turns a
report's heals into a unified diff of the spec files that a team can review and keep.
"""
