"""Every sentence the referee says, behind one translation layer.

Sentences are English templates passed through :func:`gettext`, so another
language needs a message catalogue (``rolit`` domain), not a code change. Square
names and colour names are filled in after translation.

>>> join_words(["e4", "e5", "f5"])
'e4, e5 and f5'
>>> sentence("roll {squares} to {colour} too", squares="e5", colour="red")
'Roll e5 to red too.'
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Sequence

__all__ = ["_", "join_words", "sentence", "colour_word", "Colour_word", "set_language"]

_translation: _gettext.NullTranslations = _gettext.NullTranslations()


def set_language(languages: Sequence[str] | None, localedir: str | None = None) -> None:
    """Use the ``rolit`` catalogue for ``languages`` (falls back to English)."""
    global _translation
    _translation = _gettext.translation("rolit", localedir=localedir, languages=languages, fallback=True)


def _(message: str) -> str:
    """Translate ``message`` (English when no catalogue is installed)."""
    return _translation.gettext(message)


def join_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(words)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def join_alternatives(words: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return _("{first} or {last}").format(first=", ".join(items[:-1]), last=items[-1])


def colour_word(label: str) -> str:
    """The translated lower-case colour name (``"red"``)."""
    return _(label)


def Colour_word(label: str) -> str:
    """The translated colour name with a capital, to start a sentence or name a player."""
    word = _(label)
    return word[:1].upper() + word[1:]


def sentence(template: str, **fields: str) -> str:
    """Translate ``template``, fill it in, capitalise it and end it with a full stop."""
    text = _(template).format(**fields)
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
