"""Discover and generate: crawl a site and write starter flow specs that pass, without a model.

`discover(options)` (engine.py) is the entry point the CLI (`flowwalk discover URL --out DIR`)
and the MCP server call. crawl.py walks the site (BFS, limits, state file), signature.py tells
pages apart, safety.py keeps destructive controls untouched, features.py classifies, generate.py
writes the specs, verify.py runs each twice before it is written, record.py and markdown.py write
crawl.json and index.md.
"""

from __future__ import annotations

from flowwalk.discover.engine import discover
from flowwalk.discover.options import DEFAULT_DESTRUCTIVE, DISCOVER_DIR, DiscoverOptions, DiscoverResult

__all__ = ["DEFAULT_DESTRUCTIVE", "DISCOVER_DIR", "DiscoverOptions", "DiscoverResult", "discover"]
