"""How the page names things: the tables' numbers and the ``%name%`` marks.

The text cites the tables by number (the source's ①–④, 2.2's side tables ②a–②d,
and 2.5–2.6's ⑤a–⑥); one table here gives every number, and every table block,
whichever module builds it, takes its caption from :func:`named_table`.
"""

from __future__ import annotations

from typing import Any

#: The tables' numbers, as the text cites them.
TABLE_NUMBERS: dict[str, str] = {
    "table-1": "①",
    "table-2": "②",
    "table-2-damping": "②a",
    "table-2b": "②b",
    "table-2-stall": "②c",
    "table-2-stall-starts": "②d",
    "table-3": "③",
    "table-4": "④",
    "table-soft-reach": "④a",
    "table-limits": "⑤a",
    "table-limits-reach": "⑤b",
    "table-rest": "⑤c",
    "table-motion-coherence": "⑤d",
    "table-motion-tracking": "⑥",
}


def fill(template: str, **values: Any) -> str:
    """``template`` with each ``%name%`` replaced (the page's script fills the same marks)."""
    for name, value in values.items():
        template = template.replace(f"%{name}%", str(value))
    return template


def table_name(table_id: str, text: dict[str, Any]) -> str:
    """ "Table ②b" / "表②b": how the text and the caption name a table."""
    return text["page"]["table_name"].replace("%number%", TABLE_NUMBERS[table_id])


def named_table(table: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """A table dict (``id``, ``caption``, …) with its number in front of the caption;
    ``caption_text`` keeps the caption alone."""
    name = table_name(table["id"], text)
    return {
        **table,
        "name": name,
        "caption_text": table["caption"],
        "caption": f"{name}  {table['caption']}",
    }


def table_words(text: dict[str, Any]) -> dict[str, str]:
    """Words that table cells use: yes/no and the status names."""
    return {"yes": text["readings"]["yes"], "no": text["readings"]["no"], **text["status"]}
