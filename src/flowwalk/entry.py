"""The `flowwalk` console script: starts Playwright's driver first when the command is `run`, then
hands the command line to `cli` (see browser/driver.py: the driver loads while Python imports).

Kept apart from `cli` so that nothing (not even click) is imported before the driver is spawned.
"""

from __future__ import annotations

import sys


def main() -> None:
    if _runs_a_browser(sys.argv[1:]):
        from flowwalk.browser import driver, seams

        if seams.private_api_allowed():
            driver.spawn()
    from flowwalk.cli import main as cli_main

    cli_main()


def _runs_a_browser(args: list[str]) -> bool:
    """`flowwalk run ...`, unless it only asks for help."""
    return bool(args) and args[0] == "run" and not {"-h", "--help"} & set(args)


if __name__ == "__main__":  # pragma: no cover
    main()
