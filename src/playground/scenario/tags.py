"""The lesson tags' names in the interface's language (issue 28).

A tag is written in English in the scenario file (`tags = ["race", "lua"]`) and is also a
search word; where a tag is shown, it is named through the catalogue in the context
"lesson tag". A tag a teacher invents that is not below is shown as written.
tests/i18n/test_i18n_tags.py checks every tag of the bundled lessons is here.
"""

from __future__ import annotations

from collections.abc import Iterable

from playground.i18n import NP_, trp

VOCABULARY = (
    NP_("lesson tag", "atomic"), NP_("lesson tag", "atomicity"), NP_("lesson tag", "basics"),
    NP_("lesson tag", "blocking"), NP_("lesson tag", "busy"), NP_("lesson tag", "challenge"),
    NP_("lesson tag", "cluster"), NP_("lesson tag", "connections"), NP_("lesson tag", "errors"),
    NP_("lesson tag", "headline"), NP_("lesson tag", "lists"), NP_("lesson tag", "locks"),
    NP_("lesson tag", "lua"), NP_("lesson tag", "myths"), NP_("lesson tag", "node"),
    NP_("lesson tag", "programs"), NP_("lesson tag", "python"), NP_("lesson tag", "race"),
    NP_("lesson tag", "rate-limiting"), NP_("lesson tag", "recorded"), NP_("lesson tag", "replication"),
    NP_("lesson tag", "security"), NP_("lesson tag", "server"), NP_("lesson tag", "transactions"),
    NP_("lesson tag", "ttl"), NP_("lesson tag", "watch"),
)


def tag_name(tag: str) -> str:
    """`tag` as the interface shows it (a tag not in the vocabulary: as written)."""
    return trp("lesson tag", tag)


def tag_names(tags: Iterable[str]) -> str:
    """The tags shown in a list: "竞态, Lua"."""
    return ", ".join(tag_name(t) for t in tags)
