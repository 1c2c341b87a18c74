"""One meaning of a target, and self-healing: element fingerprints, candidate scoring, `healed`
findings and the diff writer.

`heal.meaning` reads a person's words ("the first book's checkbox") and scores page elements
against them, `heal.decide` ranks and decides, `heal.find` is the whole judgement over one page
read, with or without a pinned selector (resolving a target with no selector is healing without a
fingerprint). A heal replaces a pinned act selector that failed for this run only; it is recorded
as a `healed` finding (`events.Heal`), and `heal.patch` turns a report's heals into a unified diff
of the spec files that a team can review and keep.
"""
