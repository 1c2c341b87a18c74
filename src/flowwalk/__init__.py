"""flowwalk: browser checks kept as data, walked headless in Chromium, reported on the pull request."""

__version__ = "0.1.0"
