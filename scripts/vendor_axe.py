#!/usr/bin/env python3
"""Vendor axe-core into the package: `scripts/vendor_axe.py [VERSION]` (default: the version vendored).

Fetches the axe-core tarball with `npm pack` (the npm registry's own client), checks it against
the integrity the registry publishes, and writes into src/flowwalk/vendor/axe/:

- axe.min.js, the script flowwalk injects into the page (`expect kind: accessible`,
  `no_accessibility_violations`);
- LICENSE, axe-core's licence (MPL-2.0: the file is shipped unmodified, with its licence);
- axe.json: the version, the tarball's integrity, the script's SRI hash (checked against the
  package's own sri-history.json), and every rule id with its tags and help URL, read from
  `axe.getRules()` in Chromium, so that the spec loader can refuse an unknown rule id at load.

The package data is then a plain file of the wheel and of the image: no Node.js at run time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEST = HERE / "src" / "flowwalk" / "vendor" / "axe"


def main(argv: list[str]) -> int:
    current = json.loads((DEST / "axe.json").read_text()) if (DEST / "axe.json").is_file() else {}
    version = argv[0] if argv else current.get("version")
    if not version:
        print("usage: scripts/vendor_axe.py VERSION", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        packed = json.loads(subprocess.run(["npm", "pack", f"axe-core@{version}", "--json"], cwd=tmp, check=True,
                                           capture_output=True, text=True).stdout)[0]
        tarball = Path(tmp) / packed["filename"]
        published = subprocess.run(["npm", "view", f"axe-core@{version}", "dist.integrity"], check=True,
                                   capture_output=True, text=True).stdout.strip()
        digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
        if digest != published:
            print(f"integrity mismatch: {digest} != {published}", file=sys.stderr)
            return 1
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        package = Path(tmp) / "package"
        script = (package / "axe.min.js").read_bytes()
        sri = "sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode()
        history = json.loads((package / "sri-history.json").read_text())
        if history.get(version, {}).get("axe.min.js") != sri:
            print(f"axe.min.js {sri} is not the hash sri-history.json records", file=sys.stderr)
            return 1
        DEST.mkdir(parents=True, exist_ok=True)
        (DEST / "axe.min.js").write_bytes(script)
        shutil.copyfile(package / "LICENSE", DEST / "LICENSE")
    rules = _rules((DEST / "axe.min.js").read_text(encoding="utf-8"))
    record = {"name": "axe-core", "version": version, "license": "MPL-2.0", "integrity": published,
              "script": "axe.min.js", "script_sri": sri, "rules": rules}
    # one rule a line: a new axe-core version shows as a readable diff
    head = json.dumps({k: v for k, v in record.items() if k != "rules"}, indent=1)[:-2]
    lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in rules.items())
    (DEST / "axe.json").write_text(f'{head},\n "rules": {{\n{lines}\n }}\n}}\n', encoding="utf-8")
    print(f"vendored axe-core {version}: {len(rules)} rules, {sri}")
    return 0


def _rules(script: str) -> dict[str, dict[str, object]]:
    sys.path.insert(0, str(HERE / "src"))
    from playwright.sync_api import sync_playwright

    from flowwalk.settings import CHROMIUM_ARGS, default_executable

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        page = browser.new_page()
        page.set_content("<main></main>")
        page.add_script_tag(content=script)
        found = page.evaluate("() => axe.getRules().map(r => ({id: r.ruleId, tags: r.tags, help_url: r.helpUrl}))")
        browser.close()
    return {r["id"]: {"tags": sorted(r["tags"]), "help_url": r["help_url"]} for r in sorted(found, key=lambda r: r["id"])}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
