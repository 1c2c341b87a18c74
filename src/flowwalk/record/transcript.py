"""From what the recorder's pages reported (browser/recorder.py's `Recorded`) to authoring steps.

What a person does is noisier than what a spec says, so the reports are cut down as a person
would write the steps:

- typing is one `fill` with the field's last value (consecutive inputs into one field merge);
  a secret field's fill is `{{NAME}}`, its value never known here;
- a click that only put the caret in a field, followed by typing, a key or a choice there, is
  dropped; so is the click a key made (Enter or Space on a button: `detail` 0), and the two
  clicks of a double click;
- a dialog belongs to the act before it (`dialog: {accept, message, answer}`), a popup too
  (`popup: {steps, close}`, its pages's steps inside);
- a top document's new address is a `goto` only when it is not where a walk before recording
  left the page (`--append`, `--session`), and no act on that page came within
  `CAUSED_S` before it (a click on a link navigates by itself);
- a page (a popup's too) that went to a host other than the entry's names it in `hosts`, which
  the spec lists as `allowed_hosts`, so that its replay may go there;
- the steps inside an iframe are a `frame:` block (nested iframes, nested blocks);
- the hover a click needed (a menu that opens on hover) is a `hover` before it, once;
- a check picked in the toolbar is its expect step (`visible`, `has_text`, `input_value`,
  `checked`/`unchecked`, `texts` and `count` of a list, `url_contains`).

Each step keeps the fingerprints of the elements it names (`Node.fingerprints`, by selector), so
that the recording's fingerprints can be written beside the spec (record/fingerprints.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence
from urllib.parse import urlsplit

from flowwalk.browser.recorder import Recorded

__all__ = ["CAUSED_S", "Node", "Transcript", "transcribe"]

#: a navigation this soon after an act on its page is that act's doing
CAUSED_S = 2.0
_ACTS = ("hover", "click", "dblclick", "fill", "press", "select", "check", "uncheck", "upload", "drag")
_TYPED = ("fill", "press", "select", "upload")


@dataclass
class Node:
    """A step as data (`step`), the fingerprints of what it names (selector -> fingerprint), and the
    steps it holds: a frame block's, or an act's popup's."""

    step: dict[str, Any]
    fingerprints: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    children: list["Node"] = field(default_factory=list)
    page: int = 0
    frames: tuple[dict[str, Any], ...] = ()
    at: float = 0.0


@dataclass
class Transcript:
    """The steps of a recording, the secrets it needs, and what the person should know."""

    steps: list[Node]
    secrets: list[str]
    notes: list[str]
    #: the hosts besides the entry's that a page of the recording went to, in order
    hosts: list[str] = field(default_factory=list)


def _where(item: Recorded) -> tuple[int, tuple[str, ...]]:
    return item.page, tuple(f["selector"] for f in item.frames)


def _fp(record: dict[str, Any], key: str = "fp") -> dict[str, Any] | None:
    value = record.get(key)
    return value if isinstance(value, dict) else None


class _Reader:
    """One pass over the reports: acts and checks as nodes, the rest applied to them."""

    def __init__(self, entry_url: str):
        self.entry = urlsplit(entry_url)
        self.nodes: list[Node] = []
        self.secrets: dict[tuple[int, tuple[str, ...], str], str] = {}
        self.notes: list[str] = []
        self.seen_nav: set[int] = set()
        self.hosts: list[str] = []
        self.last_url: dict[int, str] = {}
        self.popups: dict[int, Node] = {}
        self.closed: set[int] = set()

    def last_act(self, page: int) -> Node | None:
        return next((n for n in reversed(self.nodes) if n.page == page and n.step.get("type") == "act"), None)

    def add(self, item: Recorded, step: dict[str, Any], *fps: tuple[str, dict[str, Any] | None]) -> None:
        kept = [(sel, fp) for sel, fp in fps if fp is not None]
        self.nodes.append(Node(step, kept, page=item.page, frames=item.frames, at=item.at))

    def read(self, item: Recorded) -> None:
        record, kind = item.record, item.record.get("kind")
        if kind in _ACTS:
            self.act(item, record, str(kind))
        elif kind == "expect":
            self.expect(item, record)
        elif kind == "secret":
            page, frames = _where(item)
            self.secrets[(page, frames, str(record["selector"]))] = str(record.get("name") or "SECRET")
        elif kind == "navigated" and record.get("start"):
            # where a walk before recording left the page: its address, not a step
            self.seen_nav.add(item.page)
            self.last_url[item.page] = str(record.get("url") or "")
        elif kind == "navigated":
            self.navigated(item, str(record.get("url") or ""))
        elif kind == "dialog":
            self.dialog(item, record)
        elif kind == "popup":
            opener = self.last_act(int(record.get("opener") or 0))
            if opener is not None:
                self.popups[item.page] = opener
        elif kind == "closed":
            self.closed.add(item.page)
        elif kind == "refused":
            self.notes.append("a secret field's value is never checked: that check was not recorded")

    def act(self, item: Recorded, record: dict[str, Any], kind: str) -> None:
        selector = str(record.get("selector") or "body")
        step: dict[str, Any] = {"type": "act", "action": kind, "selector": selector}
        fps: list[tuple[str, dict[str, Any] | None]] = [(selector, _fp(record))]
        if kind == "fill":
            step["value"] = record.get("value")
            step["_secret"] = record.get("name") if record.get("secret") else None
        elif kind == "press":
            step["value"] = str(record.get("key") or "Enter")
        elif kind == "select":
            step["value"] = str(record.get("value") or "")
        elif kind == "upload":
            files = [str(f) for f in record.get("files") or [] if f]
            if not files:
                return
            step["value"] = files[0]
            self.notes.append(f"upload: put {files[0]!r} beside the spec (an upload's file is found relative to it)")
        elif kind == "drag":
            step["to"] = str(record.get("to") or "body")
            fps.append((step["to"], _fp(record, "to_fp")))
        elif kind == "click":
            step["_field"] = bool(record.get("field"))
            step["_control"] = record.get("control")
            step["_keyed"] = record.get("detail") == 0
        self.add(item, step, *fps)

    def expect(self, item: Recorded, record: dict[str, Any]) -> None:
        check, selector = str(record.get("check") or ""), str(record.get("selector") or "")
        fp = _fp(record)
        if check == "url":
            self.add(item, {"type": "expect", "kind": "url_contains", "value": self.shown(str(record.get("url")))})
        elif check in ("texts", "count"):
            texts = [str(t) for t in record.get("texts") or []]
            step: dict[str, Any] = {"type": "expect", "kind": check, "selector": selector}
            step["equals"] = texts if check == "texts" else len(texts)
            self.add(item, step, (selector, fp))
        elif check == "text":
            self.add(item, {"type": "expect", "kind": "has_text", "selector": selector,
                            "value": str(record.get("value"))}, (selector, fp))
        elif check == "value":
            self.add(item, {"type": "expect", "kind": "input_value", "selector": selector,
                            "value": str(record.get("value"))}, (selector, fp))
        elif check in ("visible", "checked", "unchecked"):
            self.add(item, {"type": "expect", "kind": check, "selector": selector}, (selector, fp))

    def shown(self, url: str) -> str:
        """A URL as a check names it: the path, query and fragment on the entry's origin."""
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc) != (self.entry.scheme, self.entry.netloc):
            return url
        return parts.path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")

    def navigated(self, item: Recorded, url: str) -> None:
        page = item.page
        parts = urlsplit(url)
        host = parts.hostname or ""
        if (not item.frames and parts.scheme in ("http", "https") and host and host != self.entry.hostname
                and not host.endswith(f".{self.entry.hostname}") and host not in self.hosts):
            self.hosts.append(host)
        first = page not in self.seen_nav
        self.seen_nav.add(page)
        before, self.last_url[page] = self.last_url.get(page), url
        if first or url == before or url in ("", "about:blank"):
            return
        last = self.last_act(page)
        recent = [n for n in self.nodes if n.page == page and n.at >= item.at - CAUSED_S]
        if last is not None and any(n.step.get("type") == "act" for n in recent):
            return
        self.add(Recorded({}, page, (), item.at), {"type": "goto", "url": url})

    def dialog(self, item: Recorded, record: dict[str, Any]) -> None:
        act = self.last_act(item.page)
        if act is None:
            self.notes.append(f"a {record.get('type')} opened before any act: it is not in the spec")
            return
        answer: dict[str, Any] = {"accept": bool(record.get("accept"))}
        if record.get("message"):
            answer["message"] = str(record["message"])
        if record.get("answer") is not None:
            answer["answer"] = str(record["answer"])
        act.step["dialog"] = answer


def _tidy(nodes: list[Node], secrets: dict[tuple[int, tuple[str, ...], str], str]) -> list[Node]:
    """Merge typing, drop the clicks that only focused or that a key made (see the module docstring)."""
    out: list[Node] = []
    for index, node in enumerate(nodes):
        step = node.step
        key = (node.page, tuple(f["selector"] for f in node.frames))
        action = step.get("action")
        if action == "fill":
            name = secrets.get((*key, step["selector"])) or step.pop("_secret", None)
            step.pop("_secret", None)
            if name:
                step["value"] = "{{" + name + "}}"
            elif step["value"] is None:
                continue
            previous = next((n for n in reversed(out) if n.page == node.page), None)
            if (previous is not None and previous.step.get("action") == "fill"
                    and previous.step["selector"] == step["selector"] and previous.frames == node.frames):
                out.remove(previous)
        elif action == "click":
            field_, control, keyed = step.pop("_field"), step.pop("_control"), step.pop("_keyed")
            later = next((n for n in nodes[index + 1:] if n.page == node.page and n.step.get("type") == "act"), None)
            if field_ and later is not None and later.step.get("action") in _TYPED \
                    and later.step["selector"] in (step["selector"], control):
                continue
            before = next((n for n in reversed(out) if n.page == node.page), None)
            if keyed and before is not None and before.step.get("action") == "press":
                continue
        elif action == "hover":
            before = next((n for n in reversed(out) if n.page == node.page), None)
            if before is not None and before.step == step and before.frames == node.frames:
                continue   # the pointer is still there
        elif action == "dblclick":
            for _ in range(2):
                before = next((n for n in reversed(out) if n.page == node.page), None)
                if before is not None and before.step.get("action") == "click" \
                        and before.step["selector"] == step["selector"] and before.frames == node.frames:
                    out.remove(before)
        out.append(node)
    return out


def _framed(nodes: Iterable[Node], depth: int = 0) -> list[Node]:
    """Consecutive steps inside the same iframe as one `frame:` block (nested ones nested)."""
    out: list[Node] = []
    for node in nodes:
        if len(node.frames) <= depth:
            out.append(node)
            continue
        frame = node.frames[depth]
        last = out[-1] if out else None
        if last is not None and last.step.get("frame") == frame["selector"] and last.children \
                and len(last.children[-1].frames) > depth:
            last.children.append(node)
            continue
        fps = [(frame["selector"], frame["fp"])] if isinstance(frame.get("fp"), dict) else []
        out.append(Node({"frame": frame["selector"]}, fps, [node], page=node.page, frames=node.frames[:depth],
                        at=node.at))
    for block in out:
        if "frame" in block.step and block.children and len(block.children[0].frames) > depth:
            block.children = _framed(block.children, depth + 1)
    return out


def transcribe(items: Sequence[Recorded], entry_url: str) -> Transcript:
    """The steps of a recording that started at `entry_url` (see the module docstring)."""
    reader = _Reader(entry_url)
    for item in items:
        reader.read(item)
    nodes = _tidy(reader.nodes, reader.secrets)
    names = {n.step["value"][2:-2] for n in nodes if n.step.get("action") == "fill"
             and str(n.step.get("value", "")).startswith("{{") and str(n.step["value"]).endswith("}}")}
    by_page: dict[int, list[Node]] = {}
    for node in nodes:
        by_page.setdefault(node.page, []).append(node)
    for page in sorted(by_page, reverse=True):
        if page == 0:
            continue
        opener = reader.popups.get(page)
        if opener is None:
            reader.notes.append(f"a page opened without an act of the recording: its {len(by_page[page])} steps "
                                "are left out")
            continue
        opener.children = _framed(by_page[page])
    for page, opener in reader.popups.items():
        # a popup left open says so; one closed (or only checked to open) is what `popup:` does by default
        opener.step["popup"] = {} if page in reader.closed or page not in by_page else {"close": False}
    return Transcript(_framed(by_page.get(0, [])), sorted(names), reader.notes, reader.hosts)
