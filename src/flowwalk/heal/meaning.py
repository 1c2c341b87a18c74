"""What a target means, and how much each page element is it: the healer's pure scoring.

A target is written the way people write them: `Books link in the Catalog module`, `changelist
search box`, `Active filter`, `first todo row`, `delete (x) button of the first todo`.
`parse_target` splits one into

- **name words**: what the element itself says or is called (`books`, `delete`); a word in
  parentheses is another way to say the word before it (`delete (x)`);
- **role words**: link, button, box, field, checkbox, filter, row, tab, menu ... (`ROLE_WORDS`);
- **context words**: what is around it, after `in`, `of`, `under`, `inside`, `within`, `next to`,
  `beside`, `near`, `for` or a possessive (`catalog`, `module`, `todo`);
- **an ordinal**: first, second ... last; it counts the element among elements like it
  (`first todo row`) or, inside the context (`of the first todo`), the row or list item it sits in.

`PageElement` is one candidate as the page read it (`Page.candidates` in browser/page.py collects them: one
record per actionable element of the main frame and same-origin frames). `meaning_score` scores
one element against a target, 0..1, and says what it lacked:

    d = N x C x R x O

- N, the name: each name word gets the credit of the best place it is found, the mean over the
  words. The element's own visible name (accessible name, label, text, alt) 1.0; placeholder,
  title, test id or a button's value 0.9; its id, name attribute, classes or href 0.9 when it
  has no visible name of its own (an icon button is named by its class), else 0.55 (a "Change"
  link whose href says `book` is not the Books link); the row or list item it sits in 0.9 for an
  element with no visible name (a todo's checkbox is named by its row), for a row itself the list
  it belongs to 0.9 (a "todo row" is a row of the todo list); anything else around it 0.4. A
  synonym (`delete` for `destroy`) takes 0.85 of that, a prefix (`search` in `searchbar`) 0.75.
  An element whose visible name holds other words loses 0.1, and up to 0.1 more by their share:
  "Sign up" leads "Sign up later", and "Save" leads "Save and add another", by the margin.
  With no name words, N is the context coverage (`checkbox of "Write report"`), or 0.75 for a
  target that names only a role ("the link": the one link on the page is it, one of two is not).
- C, the context: 1 when every context word is found around the element (or in its own name:
  "Terms of Service"), else 0.3 + 0.5 x the share found (a "Loans" link in the Inventory module
  is not the Loans link in the Catalog module); 1 without context words.
- R, the role: 1 when the element has a role the target's role words name, 0.8 for an element
  with no role (a `div` with a click handler called a button) and for a link called a button or
  a button called a link (Django admin's "Add book" is a link styled as a button), 0.5 for
  another role or for a page's structure (`main`, `nav`, `section`, `form` ...: not a control,
  even when it takes focus).
- O, the ordinal: 1 when the position matches, 0.4 when it does not, 0.7 when it cannot be told.

THRESHOLD and MARGIN (heal/score.py) decide as before; the weights were tuned on the healing
corpus (tests/site/pages/heal, tests/integration/test_heal_meaning.py). docs/healing.md has the why.

`eligible` is what may be healed to or shown to a model at all: an element that can take the
step's action, never a destructive control (model.py's `destructive_word`: a button, link, menu item or tab whose words hold one
of discover's safety words, when the step clicks or presses it) unless the target names that
action itself, never a link that leaves the page's host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from flowwalk.model import DEFAULT_DESTRUCTIVE, destructive_word, words_of

__all__ = ["Want", "PageElement", "Meaning", "parse_target", "meaning_score", "eligible", "destructive",
           "cheap_words", "stem", "ROLE_WORDS", "like_key"]

# --- words -----------------------------------------------------------------------------------

_STOP = frozenset("the a an this that its it to and or with please one on at by from".split())
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "last": -1, "top": 1, "bottom": -1}
#: prepositions that start the context phrase; "sign in", "log in", "opt in" are names, not places
_CONTEXT_WORDS = ("next to", "inside", "within", "beside", "under", "near", "in", "of", "for", "on")
_PHRASAL = frozenset("sign log opt check logged signed plug zoom checked".split())

#: role words in a target -> the element roles they mean (a kind word like "filter" also wants
#: its own word somewhere on or around the element, see `_role_factor`)
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "link": ("link",), "hyperlink": ("link",), "anchor": ("link",),
    "button": ("button",), "btn": ("button",),
    "box": ("textbox", "searchbox", "combobox"), "field": ("textbox", "searchbox", "combobox", "spinbutton"),
    "input": ("textbox", "searchbox", "combobox", "spinbutton"), "textbox": ("textbox", "searchbox"),
    "searchbox": ("searchbox", "textbox"), "textarea": ("textbox",),
    "checkbox": ("checkbox", "switch"), "tickbox": ("checkbox",), "toggle": ("checkbox", "switch", "button"),
    "switch": ("switch", "checkbox"), "radio": ("radio",),
    "dropdown": ("combobox", "listbox"), "select": ("combobox", "listbox"), "combobox": ("combobox",),
    "picker": ("combobox", "listbox", "button"),
    "tab": ("tab",), "menu": ("menuitem", "button", "menu"), "menuitem": ("menuitem",),
    "row": ("row", "listitem", "option"), "item": ("listitem", "row", "option", "menuitem"),
    "entry": ("listitem", "row"), "option": ("option", "radio"),
    "filter": ("link", "button", "tab", "radio", "checkbox", "option", "combobox", "menuitem"),
    "heading": ("heading",), "header": ("heading",),
}
#: two-word role phrases, read as one role word
_ROLE_PHRASES = {("text", "box"): "textbox", ("text", "field"): "textbox", ("check", "box"): "checkbox",
                 ("radio", "button"): "radio", ("menu", "item"): "menuitem", ("drop", "down"): "dropdown",
                 ("search", "field"): "searchbox", ("input", "field"): "field"}
#: role words that are kinds rather than roles: the word itself is expected on or around the element
_KIND_WORDS = frozenset({"filter", "menu"})
#: roles a person calls by a name of their own (not by the row or item they sit in)
_CLICKABLE = frozenset({"link", "button", "tab", "menuitem", "option", "radio", "checkbox", "switch", ""})

#: words people use for the same thing (stems): a match through one counts SYNONYM of a match
_SYNONYMS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "delete remove destroy trash erase discard bin x ×",
    "close dismiss x × hide",
    "add new create plus +",
    "edit change modify update rename",
    "search find query q lookup",
    "login signin log_in sign_in",
    "logout signout log_out sign_out",
    "submit send go",
    "setting preference option",
    "next continue forward",
    "previous prev back",
    "todo task",
    "filter facet",
    "email mail e_mail",
    "password pass pwd",
    "complete done finish",
    "cancel abort",
    "save store keep",
))
_SYNONYM_OF: dict[str, frozenset[str]] = {}
for _group in _SYNONYMS:
    for _w in _group:
        _SYNONYM_OF[_w] = _SYNONYM_OF.get(_w, frozenset()) | _group

SYNONYM = 0.85
PREFIX = 0.75
#: credits by where a name word was found (see the module docstring)
OWN_NAME, OWN_HINT, ATTR_UNNAMED, ATTR_NAMED, ROW_UNNAMED, AROUND = 1.0, 0.9, 0.9, 0.55, 0.9, 0.4
ROLE_MISMATCH, ROLE_GENERIC = 0.5, 0.8
ORDINAL_MISS, ORDINAL_UNKNOWN = 0.4, 0.7
CONTEXT_BASE, CONTEXT_SLOPE = 0.3, 0.5
#: an element whose visible name says more than the target: EXTRA off for any other word, up to
#: EXACTNESS more by their share ("Sign up" leads "Sign up later" and "Save and add another")
EXTRA, EXACTNESS = 0.1, 0.1
#: N of a target that names only a role ("the link"): the one element of that role is it
ROLE_ONLY = 0.75
#: tags that hold a page's structure: never "a button" or "a link", whatever their text says
_STRUCTURE_TAGS = frozenset({"html", "body", "main", "nav", "header", "footer", "aside", "section", "article",
                             "form", "fieldset", "table", "thead", "tbody", "tfoot", "ul", "ol", "dl"})
#: the roles people swap when they name a control: a link styled as a button is "the Add button"
_CLICKABLE_ROLES = frozenset({"button", "link"})
#: roles of a page's content and structure, not of a control: an element with one of them that a
#: target calls a button is weighed as an element with no role (a `<p>` or `<img>` a framework
#: listens on), unless the target names that role itself ("the dialog")
_DOCUMENT_ROLES = frozenset({"paragraph", "img", "presentation", "none", "generic", "cell", "gridcell", "columnheader",
                             "rowheader", "rowgroup", "article", "figure", "group", "list", "table", "term",
                             "definition", "blockquote", "caption", "code", "emphasis", "strong", "time", "mark",
                             "deletion", "insertion", "subscript", "superscript", "separator", "status", "document",
                             "dialog", "complementary", "navigation", "main", "banner", "contentinfo", "region",
                             "form", "search"})
#: where a name may come from and still be no name the element shows (`name_from` of a candidate):
#: those words are its title's or placeholder's, weighed as hints, or the browser's default
_HINTED_NAMES = frozenset({"title", "placeholder", "default"})
_CONTROL_WORDS = frozenset({"button", "btn", "link", "hyperlink", "anchor"})


def stem(word: str) -> str:
    """A plural or possessive to its base word: `todos` -> `todo`, `boxes` -> `box`, `user's` -> `user`."""
    w = word.lower().strip("'’")
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("xes", "ches", "shes", "sses")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _stems(text: str) -> list[str]:
    return [stem(w) for w in words_of(text.replace("×", " x ").replace("✕", " x ")) if w]


# --- the target --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Want:
    """What a target asks for (see the module docstring)."""

    text: str
    #: name slots: each is the words that may fill it (a word and its parenthesised alternative)
    name: tuple[tuple[str, ...], ...] = ()
    roles: tuple[str, ...] = ()
    role_words: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    ordinal: int | None = None
    #: "element" (first todo row) or "context" (the button of the first todo)
    ordinal_of: str = "element"
    #: the word the ordinal was read from ("first", "3rd", "top"), as the target says it
    ordinal_word: str = ""
    #: the destructive words the target itself says ("delete", "log out"): the action it names
    names_action: tuple[str, ...] = ()

    @property
    def name_words(self) -> tuple[str, ...]:
        return tuple(w for slot in self.name for w in slot)


def _tokens(text: str) -> list[str]:
    """Words with parentheses kept as markers: `delete (x) button` -> delete ( x ) button."""
    spaced = re.sub(r"([()])", r" \1 ", text.replace("×", " x ").replace("✕", " x "))
    out: list[str] = []
    for part in spaced.split():
        if part in "()":
            out.append(part)
            continue
        out.extend(words_of(part.replace("'s", "").replace("’s", "")))
    return out


def parse_target(target: str) -> Want:
    """Read a target description (pure; see the module docstring)."""
    text = " ".join(target.split())
    tokens = _tokens(text)
    # the context phrase: after the first place word that is not part of a name ("sign in")
    split_at = None
    lowered = [t for t in tokens]
    for i in range(1, len(lowered)):
        for prep in _CONTEXT_WORDS:
            parts = prep.split()
            if lowered[i:i + len(parts)] != parts:
                continue
            if parts == ["in"] and lowered[i - 1] in _PHRASAL:
                continue
            rest = [t for t in lowered[i + len(parts):] if t not in _STOP and t not in "()"]
            if not rest or all(t in ROLE_WORDS for t in rest):
                continue
            split_at = (i, i + len(parts))
            break
        if split_at:
            break
    possessive = re.search(r"^(.*?)(?:'s|’s)\s+(.*)$", text)
    if split_at is None and possessive:
        # "the first todo's delete button": the context comes first
        before, after = _tokens(possessive.group(1)), _tokens(possessive.group(2))
        element_part, context_part = after, before
    elif split_at is None:
        element_part, context_part = lowered, []
    else:
        element_part, context_part = lowered[:split_at[0]], lowered[split_at[1]:]

    ordinal: int | None = None
    ordinal_of = "element"
    ordinal_word = ""
    roles: list[str] = []
    role_words: list[str] = []
    slots: list[list[str]] = []
    in_paren = False

    def take_roles(words: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(words):
            pair = tuple(words[i:i + 2])
            if len(pair) == 2 and pair in _ROLE_PHRASES:
                words_here = [_ROLE_PHRASES[pair]]
                i += 2
            else:
                words_here = [words[i]]
                i += 1
            out.extend(words_here)
        return out

    for word in take_roles(element_part):
        if word == "(":
            in_paren = True
            continue
        if word == ")":
            in_paren = False
            continue
        if word in _STOP:
            continue
        if word in _ORDINALS and ordinal is None:
            ordinal, ordinal_word = _ORDINALS[word], word
            continue
        if word in ROLE_WORDS and not in_paren:
            role_words.append(word)
            for r in ROLE_WORDS[word]:
                if r not in roles:
                    roles.append(r)
            continue
        if in_paren and slots:
            slots[-1].append(stem(word))
        else:
            slots.append([stem(word)])
    # a role word that is the whole element phrase's only word is a role, and one with no other
    # name word next to it stays a role; "search box" keeps "search" as a name word
    context: list[str] = []
    for word in take_roles(context_part):
        if word in _STOP or word in "()":
            continue
        if word in ROLE_WORDS and not role_words:
            # "Terms of Service link": the role word closes the whole description
            role_words.append(word)
            roles.extend(r for r in ROLE_WORDS[word] if r not in roles)
            continue
        if word in _ORDINALS and ordinal is None:
            ordinal, ordinal_of, ordinal_word = _ORDINALS[word], "context", word
            continue
        context.append(stem(word))
    said = " ".join(words_of(text))
    actions = tuple(w for w in DEFAULT_DESTRUCTIVE if re.search(rf"(?<!\w){re.escape(' '.join(words_of(w)))}(?!\w)", said))
    return Want(text=text, name=tuple(tuple(dict.fromkeys(s)) for s in slots), roles=tuple(roles),
                role_words=tuple(role_words), context=tuple(dict.fromkeys(context)), ordinal=ordinal,
                ordinal_of=ordinal_of, ordinal_word=ordinal_word, names_action=actions)


# --- the page's elements ----------------------------------------------------------------------

def _strs(value: Any) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if isinstance(v, (str, int, float)) and str(v))
    return ()


def _str(value: Any) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""


def _selector(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(frozen=True)
class PageElement:
    """One candidate as the page read it (`Page.candidates`' record, validated)."""

    key: str                          # "<frame>:<element id>", stable for this page
    tag: str
    role: str = ""
    name: str = ""                    # accessible name, when it is what the element shows (`from_record`)
    label: str = ""
    text: str = ""
    placeholder: str = ""
    title: str = ""
    value: str = ""                   # a button's value only: never what was typed into a field
    alt: str = ""
    testid: str = ""
    id: str = ""
    name_attr: str = ""
    classes: tuple[str, ...] = ()
    href: str = ""
    type: str = ""
    #: ids and classes of the nearest ancestors (parent first)
    near: tuple[str, ...] = ()
    #: headings, captions, legends, landmark labels around it
    around: tuple[str, ...] = ()
    #: the text of the row or list item it sits in (or is)
    item: str = ""
    item_index: int = 0               # 1-based among the item's like siblings; 0 when in none
    item_count: int = 0
    order: int = 0                    # document order among the candidates read
    frame: int = 0
    frame_url: str = ""
    visible: bool = True
    enabled: bool = True
    editable: bool = False
    offsite: bool = False             # a link to another host than the page's
    css: str | None = None            # a CSS selector that matched only it when it was read
    #: for a target that names a position: a positional selector free of the row's data that
    #: matched only it (browser/js/css_position.js), None when not asked or none was found
    css_position: str | None = None
    fingerprint: Mapping[str, Any] | None = field(default=None, compare=False)

    @classmethod
    def from_record(cls, raw: Mapping[str, Any]) -> "PageElement":
        fp = raw.get("fp")
        return cls(
            key=_str(raw.get("key")), tag=_str(raw.get("tag")).lower(), role=_str(raw.get("role")),
            name="" if _str(raw.get("name_from")) in _HINTED_NAMES else _str(raw.get("name")),
            label=_str(raw.get("label")), text=_str(raw.get("text")),
            placeholder=_str(raw.get("placeholder")), title=_str(raw.get("title")), value=_str(raw.get("value")),
            alt=_str(raw.get("alt")), testid=_str(raw.get("testid")), id=_str(raw.get("id")),
            name_attr=_str(raw.get("name_attr")), classes=_strs(raw.get("classes")), href=_str(raw.get("href")),
            type=_str(raw.get("type")).lower(), near=_strs(raw.get("near")), around=_strs(raw.get("around")),
            item=_str(raw.get("item")), item_index=_int(raw.get("item_index")),
            item_count=_int(raw.get("item_count")), order=_int(raw.get("order")), frame=_int(raw.get("frame")),
            frame_url=_str(raw.get("frame_url")), visible=bool(raw.get("visible", True)),
            enabled=bool(raw.get("enabled", True)), editable=bool(raw.get("editable", False)),
            offsite=bool(raw.get("offsite", False)),
            css=_selector(raw.get("css")), css_position=_selector(raw.get("css_position")),
            fingerprint=fp if isinstance(fp, Mapping) else None)

    @property
    def visible_name(self) -> str:
        return self.name or self.label or self.text or self.alt

    def describe(self) -> str:
        """One line for a person and for the model: `link "Books" #id .cls in "Catalog" (row 1 of 3)`."""
        parts = [self.role or self.tag]
        shown = self.visible_name or self.placeholder or self.title or self.value
        if shown:
            parts.append(f'"{shown[:60]}"')
        if self.role and self.tag not in (self.role, ""):
            parts.append(f"<{self.tag}>")
        if self.id:
            parts.append(f"#{self.id[:40]}")
        if self.testid:
            parts.append(f"test-id={self.testid[:40]}")
        if self.name_attr:
            parts.append(f"name={self.name_attr[:40]}")
        if self.classes:
            parts.append("." + ".".join(c[:30] for c in self.classes[:3]))
        if self.placeholder and self.placeholder != shown:
            parts.append(f'placeholder "{self.placeholder[:40]}"')
        if self.href:
            parts.append(f"href {self.href[:60]}")
        where = [a for a in self.around[:2] if a]
        if where:
            parts.append("in " + " / ".join(f'"{a[:40]}"' for a in where))
        if self.item_index:
            parts.append(f"(item {self.item_index} of {self.item_count}: \"{self.item[:40]}\")")
        if self.frame:
            parts.append(f"[frame {self.frame_url[:60]}]")
        return " ".join(parts)


def like_key(el: PageElement) -> tuple[str, str, tuple[str, ...]]:
    """Elements that are "like" each other for an ordinal: same role, same name, same classes."""
    return (el.role or el.tag, " ".join(_stems(el.visible_name)), tuple(sorted(el.classes)))


# --- scoring -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Meaning:
    """How much one element is what the target means: `score` (d) and what it lacked."""

    score: float
    name: float
    context: float
    role: float
    ordinal: float
    lacked: tuple[str, ...] = ()


def _match(word: str, bag: Iterable[str]) -> float:
    """1 when `word` is in `bag`, SYNONYM through a synonym, PREFIX as a prefix (4+ letters), else 0."""
    bag = list(bag)
    if word in bag:
        return 1.0
    same = _SYNONYM_OF.get(word, frozenset())
    if same and any(b in same for b in bag):
        return SYNONYM
    if len(word) >= 4 and any(len(b) > len(word) and b.startswith(word) and len(b) - len(word) <= 5 for b in bag):
        return PREFIX
    return 0.0


def _fields(el: PageElement) -> list[tuple[float, list[str]]]:
    """(credit, words) for each place a name word may be found on or around `el`, best first."""
    named = bool(_stems(el.visible_name) or (el.value and el.role == "button"))
    is_row = el.role in ("row", "listitem", "option") or el.tag in ("li", "tr")
    attrs = " ".join([el.id, el.name_attr, " ".join(el.classes), el.href])
    out = [
        (OWN_NAME, _stems(" ".join([el.name, el.label, el.text, el.alt]))),
        (OWN_HINT, _stems(" ".join([el.placeholder, el.title, el.value if el.role == "button" else "", el.testid]))),
        (ATTR_NAMED if named else ATTR_UNNAMED, _stems(attrs)),
    ]
    if is_row:
        out.append((ROW_UNNAMED, _stems(" ".join(el.near[:2]))))
    elif not named:
        out.append((ROW_UNNAMED, _stems(el.item)))
    out.append((AROUND, _stems(" ".join([*el.near, *el.around, el.item]))))
    return out


def _credit(word_slot: Sequence[str], fields: list[tuple[float, list[str]]]) -> float:
    best = 0.0
    for credit, bag in fields:
        if credit <= best:
            continue
        for word in word_slot:
            best = max(best, credit * _match(word, bag))
    return best


def _role_factor(want: Want, el: PageElement, everything: list[str]) -> tuple[float, str | None]:
    if not want.roles:
        return 1.0, None
    role = el.role
    if el.tag in ("li",) and not role:
        role = "listitem"
    kinds = [w for w in want.role_words if w in _KIND_WORDS]
    if role in want.roles:
        if kinds and not any(_match(stem(k), everything) for k in kinds):
            # a "filter" that nothing around calls a filter is only maybe one
            return 0.85, f"the word '{kinds[0]}' around it"
        return 1.0, None
    role = "" if role in _DOCUMENT_ROLES else role
    if not role and el.tag not in _STRUCTURE_TAGS and _CLICKABLE_ROLES & set(want.roles):
        return ROLE_GENERIC, f"a role ({'/'.join(want.role_words)}); it has none"
    if role in _CLICKABLE_ROLES and _CONTROL_WORDS & set(want.role_words):
        return ROLE_GENERIC, f"the role {'/'.join(want.role_words)} (it is a {role})"
    return ROLE_MISMATCH, f"the role {'/'.join(want.role_words)} (it is a {role or el.tag})"


def _position(want: Want, el: PageElement, like: tuple[int, int] | None) -> tuple[int, int] | None:
    """(index, count) the ordinal is checked against, or None when it cannot be told."""
    is_row = el.role in ("row", "listitem", "option") or el.tag in ("li", "tr")
    if want.ordinal_of == "context" or is_row:
        return (el.item_index, el.item_count) if el.item_index else None
    return like


def meaning_score(want: Want, el: PageElement, like: tuple[int, int] | None = None) -> Meaning:
    """d for one element (see the module docstring). `like` is its (position, count) among the
    candidates like it (`like_key`), for an ordinal that counts the element itself."""
    fields = _fields(el)
    everything = [w for _, bag in fields for w in bag]
    lacked: list[str] = []
    # N
    if want.name:
        credits = [_credit(slot, fields) for slot in want.name]
        n = sum(credits) / len(credits)
        missing = [slot[0] for slot, c in zip(want.name, credits) if c == 0.0]
        weak = [slot[0] for slot, c in zip(want.name, credits) if 0.0 < c < OWN_HINT]
        if missing:
            lacked.append("the words " + ", ".join(f"'{w}'" for w in missing))
        if weak:
            lacked.append("its own name saying " + ", ".join(f"'{w}'" for w in weak))
        own = _stems(el.visible_name)
        if own and n > 0:
            wanted = set(want.name_words) | set(want.context)
            extra = sum(1 for w in own if not any(_match(v, [w]) for v in wanted)) / len(own)
            n *= 1.0 - (EXTRA + EXACTNESS * extra if extra else 0.0)
    else:
        n = -1.0
    # C
    c_share = 1.0
    if want.context:
        found = [w for w in want.context if _match(w, everything) > 0]
        c_share = len(found) / len(want.context)
        if c_share < 1.0:
            lacked.append("the context " + ", ".join(f"'{w}'" for w in want.context if w not in found))
    if n < 0:   # no name words: the context names it (checkbox of "Write report"), else the role alone
        n = c_share if want.context else ROLE_ONLY
        c = 1.0
    else:
        c = 1.0 if c_share == 1.0 else CONTEXT_BASE + CONTEXT_SLOPE * c_share
    r, why = _role_factor(want, el, everything)
    if why:
        lacked.append(why)
    o = 1.0
    if want.ordinal is not None:
        pos = _position(want, el, like)
        if pos is None:
            o = ORDINAL_UNKNOWN
            lacked.append("a position to check 'the " + _ordinal_word(want.ordinal) + "' against")
        else:
            index, count = pos
            hit = index == count if want.ordinal == -1 else index == want.ordinal
            if not hit:
                o = ORDINAL_MISS
                lacked.append(f"being the {_ordinal_word(want.ordinal)} (it is {index} of {count})")
    if not el.visible:
        lacked.append("being visible")
    score = round(max(0.0, n) * c * r * o, 3)
    return Meaning(score=score, name=round(max(n, 0.0), 3), context=round(c_share, 3), role=r, ordinal=o,
                   lacked=tuple(lacked))


def _ordinal_word(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}.get(n, f"#{n}")


def like_positions(elements: Sequence[PageElement]) -> dict[str, tuple[int, int]]:
    """Each element's (position, count) among the elements like it, in document order."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[PageElement]] = {}
    for el in sorted(elements, key=lambda e: (e.frame, e.order)):
        groups.setdefault(like_key(el), []).append(el)
    out: dict[str, tuple[int, int]] = {}
    for members in groups.values():
        for i, el in enumerate(members, start=1):
            out[el.key] = (i, len(members))
    return out


# --- what may be healed to -----------------------------------------------------------------------

#: actions that trigger a control, and the roles of controls whose words say what they do
_TRIGGERS = frozenset({"click", "dblclick", "press"})
_CONTROLS = frozenset({"button", "link", "menuitem", "tab", ""})
_FILLABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
_CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})


def can_take(action: str | None, el: PageElement) -> bool:
    """Can `el` take the step's action at all? (a fill needs a field, a check a checkbox ...; a
    read, None, takes any element)"""
    if action in ("fill", "press"):
        return el.editable or el.role in _FILLABLE or (action == "press" and el.role in ("button", "link"))
    if action in ("check", "uncheck"):
        return el.role in _CHECKABLE
    if action == "select":
        return el.tag == "select" or el.role in ("combobox", "listbox")
    if action == "upload":
        return el.tag == "input" and el.type == "file"
    return True   # click, dblclick, hover, focus, scroll: anything on the page may take them


def destructive(el: PageElement) -> str | None:
    """The destructive word (discover's safety words) the element says, or None."""
    record = {"name": el.visible_name, "text": el.text, "testid": el.testid, "id": el.id, "raw_href": el.href,
              "classes": list(el.classes), "attrs": {"title": el.title, "value": el.value, "name": el.name_attr}}
    return destructive_word(record, DEFAULT_DESTRUCTIVE)


def _family(word: str) -> frozenset[str]:
    stems = _stems(word)
    key = stems[0] if len(stems) == 1 else "_".join(stems)
    return _SYNONYM_OF.get(key, frozenset({key})) | {key}


def eligible(want: Want | None, action: str | None, el: PageElement,
             fingerprint: Mapping[str, Any] | None = None) -> str | None:
    """Why `el` may not be healed to or shown to a model, or None when it may. A destructive control
    may be when the target names its action, or when the step's element in the earlier run (its
    `fingerprint`) was a destructive control too: the step pressed it then."""
    if not can_take(action, el):
        return f"cannot take '{action}'"
    if el.offsite:
        return "leaves the site"
    if action not in _TRIGGERS or el.role not in _CONTROLS:
        return None   # typing into a field, choosing an option, a row's text: no control is triggered
    word = destructive(el)
    if word is not None and fingerprint:
        was = {"name": _str(fingerprint.get("aname")), "text": _str(fingerprint.get("text")),
               "testid": _str(fingerprint.get("testid")), "id": _str(fingerprint.get("id")),
               "raw_href": _str(fingerprint.get("href")), "classes": _strs(fingerprint.get("classes")),
               "attrs": {"name": _str(fingerprint.get("name"))}}
        if destructive_word(was, DEFAULT_DESTRUCTIVE) is not None:
            return None
    if word is not None:
        said = want.names_action if want is not None else ()
        if not any(_family(word) & _family(s) for s in said):
            return f"destructive ('{word}') and the target does not name that action"
    return None


def cheap_words(want: Want | None, fingerprint: Mapping[str, Any] | None) -> list[str]:
    """The words the page read ranks its elements by before the full score (`Page.candidates`):
    the target's name, role and context words with their synonyms, and the fingerprint's."""
    out: list[str] = []
    if want is not None:
        for word in [*want.name_words, *want.context, *want.role_words]:
            out.append(word)
            out.extend(sorted(_SYNONYM_OF.get(word, ())))
    if fingerprint:
        for key in ("aname", "text", "id", "testid", "name", "href"):
            out.extend(_stems(_str(fingerprint.get(key))))
        for c in _strs(fingerprint.get("classes")):
            out.extend(_stems(c))
    return [w for w in dict.fromkeys(out) if w and w not in _STOP][:40]
