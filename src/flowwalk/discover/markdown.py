"""`discover/index.md`: the crawl for people and coding agents, rendered from the crawl record."""

from __future__ import annotations

from flowwalk.discover.record import CrawlRecord

__all__ = ["render_index"]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_index(record: CrawlRecord) -> str:
    pages = {p.id: p for p in record.pages}
    written = [s for s in record.specs if s.status == "written"]
    review = [s for s in record.specs if s.status != "written"]
    out = [
        f"# What flowwalk discover found at {record.start_url}",
        "",
        f"{len(record.pages)} pages, {len(record.features)} features, {len(written)} specs written, "
        f"{len(review)} in needs-review/; crawl stopped: **{record.stopped_reason}** after "
        f"{record.duration_s:.1f} s and {record.actions} actions "
        f"(limits: {record.limits.max_pages} pages, depth {record.limits.max_depth}, "
        f"{record.limits.max_actions} actions, {record.limits.budget_s:.0f} s).",
        "",
        "Run the written specs with `flowwalk run <out>/`. The data behind this page is `crawl.json` "
        "(schema: `schemas/crawl.v1.schema.json`); each page's accessibility snapshot and screenshot are "
        "under `pages/<slug>/`.",
        "",
        "## Pages",
        "",
        "| page | title | signature | depth | visits | links to | features |",
        "|---|---|---|---|---|---|---|",
    ]
    for page in record.pages:
        links = ", ".join(pages[t].path for t in page.links_to if t in pages)
        out.append(f"| [{_cell(page.path)}]({page.snapshot}) | {_cell(page.title)} | `{page.signature}` | "
                   f"{page.depth} | {len(page.visits)} | {_cell(links)} | {_cell(', '.join(page.features))} |")
    out += ["", "## Features", "", "Why each was classified as it was.", ""]
    for feature in record.features:
        owner = pages.get(feature.page)
        where = owner.path if owner else feature.page
        also = f" (also on {len(feature.pages) - 1} more pages)" if len(feature.pages) > 1 else ""
        out.append(f"- **{_cell(feature.id)}** ({feature.kind}) on {where}{also}: {_cell(feature.reason)}")
    if record.dismiss_selectors:
        out += ["", "## Dismiss selectors", "",
                "Every generated spec starts by accepting this banner. To have flowwalk dismiss it in your own "
                "specs, put these in `flowwalk.yaml`:", "", "```yaml", "dismiss_selectors:"]
        out += [f"  - '{d.selector}'" for d in record.dismiss_selectors]
        out.append("```")
    if record.journeys:
        out += ["", "## Journeys", "",
                "Each journey acts, observes what changed, and checks that; it was walked twice in fresh browser "
                "contexts and keeps only what both walks saw alike.", ""]
        for journey in record.journeys:
            owner = pages.get(journey.page)
            written_as = f"`{journey.spec}`" if journey.spec else "not written"
            out += [f"### {_cell(journey.name)} ({owner.path if owner else journey.page})", "",
                    f"Why: {_cell(journey.why)}. Spec: {written_as}.", ""]
            out += [f"{n}. {_cell(m.name)}: " + (_cell("; ".join(m.checks)) or "nothing to check")
                    for n, m in enumerate(journey.moves, 1)]
            if journey.noted:
                out += ["", "Also seen (not checkable in a spec): " + _cell("; ".join(journey.noted[:8]))]
            if journey.dropped:
                out += ["", "Left out (the two walks differed): " + _cell("; ".join(journey.dropped[:8]))]
            out.append("")
    if record.failed_resources:
        out += ["", "## Resources that did not load", "",
                "Findings, not reasons to hold specs back: the specs of these pages do not assert "
                "`no_console_errors` (the browser logs every failed load as a console error).", ""]
        out += [f"- {_cell(r)}" for r in record.failed_resources]
    out += ["", "## Specs", "", "| spec | feature | status |", "|---|---|---|"]
    for spec in record.specs:
        status = "written" if spec.status == "written" else f"{spec.status}: {_cell(spec.failure or '')}"
        if spec.variables:
            status += f" (needs {', '.join('{{' + v + '}}' for v in spec.variables)})"
        out.append(f"| `{_cell(spec.path)}` | {_cell(spec.feature)} | {status} |")
    if record.skipped:
        out += ["", "## Not followed", ""]
        out += [f"- from {pages[s.from_].path if s.from_ in pages else '-'}: {_cell(s.what)}: {_cell(s.reason)}"
                for s in record.skipped]
    if record.loops:
        out += ["", "## Loops", "", "Actions that repeated a transition already made, or led back to the outline "
                "of a page already crawled without leaving it; not explored further.", ""]
        out += [f"- on {pages[lp.page].path if lp.page in pages else lp.page}: {_cell(lp.action)} -> "
                f"`{lp.signature}`" for lp in record.loops]
    if record.model_drops:
        out += ["", "## Model proposals dropped", ""]
        out += [f"- {_cell(d.feature)}: {_cell(d.what)}: {_cell(d.reason)}" for d in record.model_drops]
    out.append("")
    return "\n".join(out)
