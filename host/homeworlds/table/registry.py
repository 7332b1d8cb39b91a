"""Tag registry: which NFC tag UID is which piece, the turn token, or a card.

Every pyramid carries one ISO 15693 tag; the registry is the per-table list of
those tags. It is a small TOML file people may edit by hand (format in
docs/hardware.md)::

    format = 1
    table = "club table 1"

    [tags]
    "E004015012345678" = "g3b"     # green large, copy b
    "E0040150AAAABBBB" = "token"   # the turn token
    "E0040150CCCCDDDD" = "good"    # a Good alignment card

UIDs are 16 hex digits, most significant byte first (ISO 15693 UIDs start
with E0, then the maker code: 04 for NXP), case-insensitive, optionally with
``:`` between bytes as phone apps print them; they are stored upper-case
without separators.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from homeworlds.rules import PIECES, InvalidNotation, Piece

REGISTRY_FORMAT = 1
COPY_LETTERS = "abcdefghijklmnopqrstuvwxyz"
ALIGNMENTS = ("good", "evil")
TOKEN_TEXT = "token"
_HEX = set("0123456789ABCDEF")


class RegistryError(ValueError):
    """A registry file or value that is not a usable tag list.

    ``source`` is the file, ``key`` the key path (``tags."E0..."``), ``reason``
    the problem alone; ``str(error)`` joins the three.
    """

    def __init__(self, reason: str, *, key: str | None = None, source: str | None = None):
        self.reason = reason
        self.key = key
        self.source = source
        super().__init__(": ".join(part for part in (source, key, reason) if part))

    def with_source(self, source: str) -> RegistryError:
        return RegistryError(self.reason, key=self.key, source=source)


def normalize_uid(text: str) -> str:
    """``"e0:04:01:50:12:34:56:78"`` -> ``"E004015012345678"``; ValueError if malformed."""
    if not isinstance(text, str):
        raise ValueError(f"a tag UID is text, not {type(text).__name__}")
    raw = text.strip()
    if ":" in raw:
        parts = raw.split(":")
        if len(parts) != 8 or any(len(part) != 2 for part in parts):
            raise ValueError(f"malformed tag UID {text!r}: with ':' separators it must be "
                             "8 bytes of 2 hex digits (E0:04:01:...)")
        raw = "".join(parts)
    uid = raw.upper()
    if len(uid) != 16 or not set(uid) <= _HEX:
        raise ValueError(f"malformed tag UID {text!r}: an ISO 15693 UID is 16 hex digits "
                         "(8 bytes), e.g. E004015012345678")
    return uid


def is_uid(text: str) -> bool:
    try:
        normalize_uid(text)
    except ValueError:
        return False
    return True


class TagKind(Enum):
    PIECE = "piece"
    TOKEN = "token"
    CARD = "card"


@dataclass(frozen=True, slots=True)
class TagInfo:
    """What a tag is: a piece copy (``g3b``), the turn token, or an alignment card."""

    kind: TagKind
    piece: Piece | None = None
    copy: str | None = None
    alignment: str | None = None

    def __post_init__(self) -> None:
        if self.kind is TagKind.PIECE:
            if not isinstance(self.piece, Piece) or self.copy is None \
                    or len(self.copy) != 1 or self.copy not in COPY_LETTERS:
                raise ValueError(f"a piece tag needs a piece and a copy letter a-z, got "
                                 f"piece={self.piece!r} copy={self.copy!r}")
            if self.alignment is not None:
                raise ValueError("a piece tag has no alignment")
        elif self.kind is TagKind.TOKEN:
            if (self.piece, self.copy, self.alignment) != (None, None, None):
                raise ValueError("the turn token has no piece, copy or alignment")
        elif self.alignment not in ALIGNMENTS or (self.piece, self.copy) != (None, None):
            raise ValueError(f"an alignment card is 'good' or 'evil', got {self.alignment!r}")

    @classmethod
    def for_piece(cls, piece: Piece, copy: str) -> TagInfo:
        return cls(TagKind.PIECE, piece=piece, copy=copy)

    @classmethod
    def token(cls) -> TagInfo:
        return cls(TagKind.TOKEN)

    @classmethod
    def card(cls, alignment: str) -> TagInfo:
        return cls(TagKind.CARD, alignment=alignment)

    @property
    def is_piece(self) -> bool:
        return self.kind is TagKind.PIECE

    @property
    def as_piece(self) -> Piece:
        """The piece of a piece tag (ValueError for the token or a card)."""
        if self.piece is None:
            raise ValueError(f"the {self.to_text()} is not a piece")
        return self.piece

    @property
    def is_token(self) -> bool:
        return self.kind is TagKind.TOKEN

    @classmethod
    def from_text(cls, text: str) -> TagInfo:
        """``g3b`` (colour, size, copy letter), ``token``, ``good`` or ``evil``."""
        if not isinstance(text, str):
            raise ValueError(f"expected text such as 'g3b' or 'token', got {text!r}")
        key = text.strip().lower()
        if key == TOKEN_TEXT:
            return cls.token()
        if key in ALIGNMENTS:
            return cls.card(key)
        if len(key) == 3 and key[2] in COPY_LETTERS:
            try:
                piece = Piece.from_text(key[:2])
            except InvalidNotation:
                pass
            else:
                return cls.for_piece(piece, key[2])
        raise ValueError(f"unknown piece text {text!r} (expected colour, size and copy letter "
                         "such as 'g3b', or 'token', 'good', 'evil')")

    def to_text(self) -> str:
        if self.kind is TagKind.PIECE:
            return f"{self.piece}{self.copy}"
        if self.kind is TagKind.TOKEN:
            return TOKEN_TEXT
        return str(self.alignment)  # a card: checked at construction

    def sort_key(self) -> tuple:
        """Pieces in bank order (r1a .. b3c), then the token, then cards."""
        if self.kind is TagKind.PIECE:
            return (0, self.as_piece.index, self.copy)
        if self.kind is TagKind.TOKEN:
            return (1, 0, "")
        return (2, ALIGNMENTS.index(self.alignment), "")

    def __str__(self) -> str:
        return self.to_text()


class Registry:
    """An immutable UID -> TagInfo map with the rules a physical set obeys:
    one tag per piece copy, one turn token (alignment cards may repeat)."""

    __slots__ = ("_tags", "_by_info", "table")

    def __init__(self, tags: Mapping[str, TagInfo] | Iterable[tuple[str, TagInfo]] = (),
                 *, table: str = ""):
        items = tags.items() if isinstance(tags, Mapping) else tags
        self._tags: dict[str, TagInfo] = {}
        self._by_info: dict[TagInfo, str] = {}
        self.table = table
        for uid, info in items:
            self._add(uid, info, key=f"tags.{_quote(uid)}")

    def _add(self, uid: str, info: TagInfo, *, key: str) -> None:
        try:
            normal = normalize_uid(uid)
        except ValueError as error:
            raise RegistryError(str(error), key=key) from None
        if not isinstance(info, TagInfo):
            raise RegistryError(f"expected a TagInfo, got {info!r}", key=key)
        if normal in self._tags:
            raise RegistryError(f"tag {normal} is listed twice (UIDs are case-insensitive); "
                                f"first as {self._tags[normal]}", key=key)
        if info.kind is not TagKind.CARD and info in self._by_info:
            what = "the turn token" if info.is_token else f"piece copy {info}"
            raise RegistryError(f"{what} is already given to tag {self._by_info[info]}; "
                                "each piece copy (and the token) has exactly one tag", key=key)
        self._tags[normal] = info
        self._by_info.setdefault(info, normal)

    # -- lookups

    def lookup(self, uid: str) -> TagInfo | None:
        """What tag ``uid`` is; None for an unknown (or malformed) UID."""
        try:
            return self._tags.get(normalize_uid(uid))
        except ValueError:
            return None

    def uid_of(self, info: TagInfo) -> str | None:
        """The tag carrying a piece copy or the token (the first one for a card)."""
        return self._by_info.get(info)

    @property
    def token_uid(self) -> str | None:
        return self._by_info.get(TagInfo.token())

    def copies_of(self, piece: Piece) -> tuple[tuple[str, TagInfo], ...]:
        """Registered copies of one colour-size, by copy letter: ``((uid, info), ...)``."""
        found = [(uid, info) for uid, info in self._tags.items()
                 if info.is_piece and info.piece == piece]
        return tuple(sorted(found, key=lambda item: item[1].copy or ""))

    def missing_copies(self, copies_per_kind: int) -> tuple[TagInfo, ...]:
        """Piece copies a..(copies_per_kind) with no tag, in bank order."""
        return tuple(info for piece in PIECES for letter in COPY_LETTERS[:copies_per_kind]
                     if (info := TagInfo.for_piece(piece, letter)) not in self._by_info)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.lookup(uid) is not None

    def __len__(self) -> int:
        return len(self._tags)

    def __iter__(self) -> Iterator[str]:
        return iter(self._tags)

    def items(self) -> tuple[tuple[str, TagInfo], ...]:
        """``(uid, info)`` pairs in bank order (r1a .. b3c, token, cards)."""
        return tuple(sorted(self._tags.items(), key=lambda item: (item[1].sort_key(), item[0])))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Registry):
            return NotImplemented
        return self._tags == other._tags and self.table == other.table

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        pieces = sum(1 for info in self._tags.values() if info.is_piece)
        token = "with" if self.token_uid else "without"
        return f"<Registry {len(self)} tags: {pieces} pieces, {token} turn token>"

    # -- derived registries

    def with_tags(self, tags: Mapping[str, TagInfo]) -> Registry:
        """A copy with ``tags`` added or re-assigned (same rules apply)."""
        changed = {normalize_uid(uid): info for uid, info in tags.items()}
        merged = {uid: info for uid, info in self._tags.items() if uid not in changed}
        merged.update(changed)
        return Registry(merged, table=self.table)

    def without(self, uids: Iterable[str]) -> Registry:
        gone = {normalize_uid(uid) for uid in uids}
        return Registry({uid: info for uid, info in self._tags.items() if uid not in gone},
                        table=self.table)

    # -- text and files

    @classmethod
    def from_toml_text(cls, text: str, source: str = "<registry>") -> Registry:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            # tomllib refuses a key given twice with exactly the same spelling
            raise RegistryError(f"not valid TOML: {error}", source=source) from None
        try:
            return cls._from_mapping(data)
        except RegistryError as error:
            raise error.with_source(source) from None

    @classmethod
    def _from_mapping(cls, data: dict) -> Registry:
        allowed = ("format", "table", "tags")
        for key in data:
            if key not in allowed:
                raise RegistryError(f"unknown key (expected one of: {', '.join(allowed)})",
                                    key=key)
        version = data.get("format", REGISTRY_FORMAT)
        if isinstance(version, bool) or version != REGISTRY_FORMAT:
            raise RegistryError(f"unsupported registry format {version!r} (this version reads "
                                f"format {REGISTRY_FORMAT})", key="format")
        table = data.get("table", "")
        if not isinstance(table, str):
            raise RegistryError(f"expected a string, got {table!r}", key="table")
        if "tags" not in data:
            raise RegistryError("missing (required): the [tags] table", key="tags")
        tags = data["tags"]
        if not isinstance(tags, dict):
            raise RegistryError(f"expected a table of \"UID\" = \"piece\", got {tags!r}",
                                key="tags")
        registry = cls(table=table)
        for uid, text in tags.items():
            key = f"tags.{_quote(uid)}"
            if not isinstance(text, str):
                raise RegistryError(f"expected a string such as \"g3b\" or \"token\", got {text!r}",
                                    key=key)
            try:
                info = TagInfo.from_text(text)
            except ValueError as error:
                raise RegistryError(str(error), key=key) from None
            registry._add(uid, info, key=key)
        return registry

    def to_toml_text(self) -> str:
        lines = [
            "# Homeworlds table tag registry: NFC tag UID -> what the tag is on.",
            "# Values: colour (r y g b), size (1 2 3), copy letter (a b c ...), e.g. \"g3b\";",
            "# or \"token\" (the turn token), \"good\" / \"evil\" (alignment cards).",
            "# Format: docs/hardware.md. Rebuild it with the enrollment procedure.",
            f"format = {REGISTRY_FORMAT}",
        ]
        if self.table:
            lines.append(f"table = {_quote(self.table)}")
        lines += ["", "[tags]"]
        lines += [f"{_quote(uid)} = {_quote(info.to_text())}" for uid, info in self.items()]
        return "\n".join(lines) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> Registry:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise RegistryError(f"cannot read registry file: {error.strerror or error}",
                                source=str(path)) from None
        except UnicodeDecodeError as error:
            raise RegistryError(f"not UTF-8 text: {error.reason} at byte {error.start}",
                                source=str(path)) from None
        return cls.from_toml_text(text, source=str(path))

    def save(self, path: str | Path) -> None:
        """Write atomically: a crash mid-save leaves the old file, never half a file."""
        path = Path(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                             dir=path.parent)
        try:
            # mkstemp creates the file private; keep the old file's mode, or the usual 0644
            mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
            os.chmod(temporary, mode)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(self.to_toml_text())
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'
