"""Words of the lesson's main path, counted from the page as the server renders it.

The main path is what a reader meets reading down the page without opening anything:
the text of the page's body (its header included), minus every ``<details>`` body (a
folded "more"; its ``<summary>`` line is read, so it counts), minus the "under the
hood" appendix, and minus scripts, styles and drawings (SVG). English counts words
(runs of letters, with inner apostrophes or hyphens); Chinese counts Han characters,
and a run of Latin letters inside Chinese text as one word.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import ClassVar

#: Elements whose text is never the page's prose.
SKIPPED = {"script", "style", "svg", "template"}
#: The appendix, outside the main path.
APPENDIX_ID = "under-the-hood"

EN_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
HAN = re.compile(r"[\u3400-\u9fff]")


class _MainPath(HTMLParser):
    VOID: ClassVar[set[str]] = {
        "br",
        "img",
        "input",
        "meta",
        "link",
        "hr",
        "wbr",
        "source",
        "col",
        "area",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, hides its text)
        self.in_main = 0
        self.main_text: list[str] = []
        self.folded_text: list[str] = []
        self.summary_depth = 0

    def _hidden(self) -> bool:
        return any(hidden for _, hidden in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        a = dict(attrs)
        hides = tag in SKIPPED or a.get("id") == APPENDIX_ID
        if tag == "details" and "open" not in a:
            hides = True
        if tag == "summary":
            # a folded block's summary line is read on the main path
            self.stack.append((tag, False))
            self.summary_depth += 1
            return
        if tag == "body":
            self.in_main += 1
        self.stack.append((tag, hides))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        while self.stack:
            top, _ = self.stack.pop()
            if top == "body":
                self.in_main -= 1
            if top == "summary":
                self.summary_depth -= 1
            if top == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.in_main:
            return
        hidden = [h for t, h in self.stack]
        # a summary sits inside its (hiding) details: only hiders outside that details count
        if self.summary_depth:
            tags = [t for t, _ in self.stack]
            last_details = len(tags) - 1 - tags[::-1].index("details")
            hidden = hidden[:last_details]
        if any(hidden):
            self.folded_text.append(data)
        else:
            self.main_text.append(data)


def main_path_text(html: str) -> str:
    parser = _MainPath()
    parser.feed(html)
    return " ".join(parser.main_text)


def count_words(text: str, lang: str) -> int:
    if lang == "en":
        return len(EN_WORD.findall(text))
    return len(HAN.findall(text)) + len(EN_WORD.findall(text))
