"""Tag registry: UID handling, the file format, and refusals naming file and key."""

from __future__ import annotations

import stat

import pytest

from homeworlds.rules import PIECES, Piece
from homeworlds.table.registry import (
    Registry,
    RegistryError,
    TagInfo,
    TagKind,
    is_uid,
    normalize_uid,
)

SAMPLE = """\
format = 1
table = "club table 1"

[tags]
"E004015012345678" = "g3b"
"e0040150aaaabbbb" = "token"
"E0:04:01:50:00:00:00:01" = "r1a"
E004015000000002 = "good"
"E004015000000003" = "good"
"E004015000000004" = "evil"
"""


def g3() -> Piece:
    return Piece.from_text("g3")


# --------------------------------------------------------------------------- UIDs


@pytest.mark.parametrize(("text", "uid"), [
    ("E004015012345678", "E004015012345678"),
    ("e004015012345678", "E004015012345678"),
    ("  E004015012345678\n", "E004015012345678"),
    ("e0:04:01:50:12:34:56:78", "E004015012345678"),
])
def test_uids_are_normalised_to_upper_case_hex(text, uid):
    assert normalize_uid(text) == uid
    assert is_uid(text)


@pytest.mark.parametrize("text", [
    "E00401501234567",     # 15 digits
    "E0040150123456789",   # 17 digits
    "E00401501234567G",    # not hex
    "E0:04:01:50:12:34:5678",
    "E0-04-01-50-12-34-56-78",
    "",
])
def test_malformed_uids_are_refused_with_the_text(text):
    with pytest.raises(ValueError, match="malformed tag UID"):
        normalize_uid(text)
    assert not is_uid(text)


# --------------------------------------------------------------------------- tag texts


@pytest.mark.parametrize(("text", "info"), [
    ("g3b", TagInfo.for_piece(Piece.from_text("g3"), "b")),
    ("G3B", TagInfo.for_piece(Piece.from_text("g3"), "b")),
    ("r1a", TagInfo.for_piece(Piece.from_text("r1"), "a")),
    ("b2g", TagInfo.for_piece(Piece.from_text("b2"), "g")),
    ("token", TagInfo.token()),
    (" Token ", TagInfo.token()),
    ("good", TagInfo.card("good")),
    ("evil", TagInfo.card("evil")),
])
def test_tag_texts(text, info):
    assert TagInfo.from_text(text) == info
    assert TagInfo.from_text(info.to_text()) == info


@pytest.mark.parametrize("text", ["g4a", "g3", "x1a", "g31", "g3ab", "tokens", "neutral", ""])
def test_unknown_tag_texts_are_refused(text):
    with pytest.raises(ValueError, match="unknown piece text"):
        TagInfo.from_text(text)


def test_tag_info_refuses_inconsistent_values():
    with pytest.raises(ValueError):
        TagInfo(TagKind.PIECE, piece=g3())  # no copy letter
    with pytest.raises(ValueError):
        TagInfo.for_piece(g3(), "B")
    with pytest.raises(ValueError):
        TagInfo.card("neutral")
    with pytest.raises(ValueError):
        TagInfo(TagKind.TOKEN, piece=g3())


# --------------------------------------------------------------------------- the registry


def test_lookup_is_case_insensitive_and_unknown_tags_give_none():
    registry = Registry.from_toml_text(SAMPLE)
    assert registry.table == "club table 1"
    assert len(registry) == 6
    assert registry.lookup("e004015012345678") == TagInfo.for_piece(g3(), "b")
    assert registry.lookup("E0:04:01:50:AA:AA:BB:BB") == TagInfo.token()
    assert registry.lookup("E004015000000001").to_text() == "r1a"
    assert registry.lookup("E004015099999999") is None
    assert registry.lookup("not a uid") is None
    assert "E004015012345678" in registry and "E004015099999999" not in registry
    assert registry.token_uid == "E0040150AAAABBBB"
    assert registry.uid_of(TagInfo.for_piece(g3(), "b")) == "E004015012345678"
    assert registry.uid_of(TagInfo.for_piece(g3(), "a")) is None


def test_alignment_cards_may_repeat():
    registry = Registry.from_toml_text(SAMPLE)
    goods = [uid for uid, info in registry.items() if info == TagInfo.card("good")]
    assert goods == ["E004015000000002", "E004015000000003"]


def test_save_and_load_round_trip_in_bank_order(tmp_path):
    registry = Registry.from_toml_text(SAMPLE)
    path = tmp_path / "tags.toml"
    registry.save(path)
    assert Registry.load(path) == registry
    text = path.read_text()
    values = [line.split(" = ")[1] for line in text.splitlines() if line.startswith('"E0')]
    assert values == ['"r1a"', '"g3b"', '"token"', '"good"', '"good"', '"evil"']
    assert text.startswith("# Homeworlds table tag registry")
    assert 'table = "club table 1"' in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["tags.toml"]  # no temporary left behind


def test_save_keeps_the_mode_of_an_existing_file(tmp_path):
    path = tmp_path / "tags.toml"
    path.write_text("[tags]\n")
    path.chmod(0o600)
    Registry.from_toml_text(SAMPLE).save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_minimal_file_is_just_a_tags_table():
    registry = Registry.from_toml_text('[tags]\nE004015012345678 = "b1c"\n')
    assert registry.lookup("E004015012345678") == TagInfo.for_piece(Piece.from_text("b1"), "c")
    assert Registry.from_toml_text("[tags]\n") == Registry()


def test_copies_and_missing_copies():
    registry = Registry({"E004015000000010": TagInfo.for_piece(g3(), "b"),
                         "E004015000000011": TagInfo.for_piece(g3(), "a")})
    assert [info.to_text() for _, info in registry.copies_of(g3())] == ["g3a", "g3b"]
    missing = registry.missing_copies(3)
    assert len(missing) == 34
    assert missing[0].to_text() == "r1a"
    assert "g3c" in [m.to_text() for m in missing] and "g3a" not in [m.to_text() for m in missing]
    assert len(Registry().missing_copies(5)) == 60


def test_derived_registries_leave_the_original_alone():
    registry = Registry({"E004015000000010": TagInfo.token()})
    bigger = registry.with_tags({"e004015000000011": TagInfo.for_piece(PIECES[0], "a")})
    assert len(registry) == 1 and len(bigger) == 2
    assert bigger.lookup("E004015000000011").to_text() == "r1a"
    assert len(bigger.without(["e004015000000010"])) == 1
    with pytest.raises(RegistryError, match="the turn token is already given to tag"):
        registry.with_tags({"E004015000000011": TagInfo.token()})


def test_registry_built_in_code_obeys_the_same_rules():
    with pytest.raises(RegistryError, match="piece copy g3a is already given to tag"):
        Registry({"E004015000000010": TagInfo.for_piece(g3(), "a"),
                  "E004015000000011": TagInfo.for_piece(g3(), "a")})
    with pytest.raises(RegistryError, match="malformed tag UID"):
        Registry({"E0040150": TagInfo.token()})


# --------------------------------------------------------------------------- refusals

BAD = [
    ("same UID in two spellings",
     '"E004015012345678" = "g3b"\n"e004015012345678" = "g3c"\n',
     'tags."e004015012345678": tag E004015012345678 is listed twice'),
    ("same UID, one with colons",
     '"E004015012345678" = "g3b"\n"E0:04:01:50:12:34:56:78" = "g3c"\n',
     'tags."E0:04:01:50:12:34:56:78": tag E004015012345678 is listed twice'),
    ("malformed UID", '"E00401501234567" = "g3b"\n',
     'tags."E00401501234567": malformed tag UID'),
    ("unknown piece text", '"E004015012345678" = "g4b"\n',
     'tags."E004015012345678": unknown piece text \'g4b\''),
    ("piece without copy letter", '"E004015012345678" = "g3"\n',
     'tags."E004015012345678": unknown piece text \'g3\''),
    ("value not a string", '"E004015012345678" = 3\n',
     'tags."E004015012345678": expected a string'),
    ("two tags for one piece copy",
     '"E004015012345678" = "g3b"\n"E004015012345679" = "G3B"\n',
     'tags."E004015012345679": piece copy g3b is already given to tag E004015012345678'),
    ("two turn tokens",
     '"E004015012345678" = "token"\n"E004015012345679" = "token"\n',
     'tags."E004015012345679": the turn token is already given to tag E004015012345678'),
]


@pytest.mark.parametrize(("body", "expected"), [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_bad_registries_are_refused_naming_file_and_key(body, expected):
    with pytest.raises(RegistryError) as caught:
        Registry.from_toml_text("[tags]\n" + body, source="tags.toml")
    assert str(caught.value).startswith(f"tags.toml: {expected}"), str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(("text", "expected"), [
    ('[tags]\n"E004015012345678" = "g3b"\n"E004015012345678" = "g3c"\n', "not valid TOML"),
    ("[tag]\n", "tag: unknown key (expected one of: format, table, tags)"),
    ("format = 1\n", "tags: missing (required)"),
    ("format = 2\n[tags]\n", "format: unsupported registry format 2"),
    ("table = 5\n[tags]\n", "table: expected a string"),
    ('tags = "none"\n', "tags: expected a table"),
])
def test_bad_registry_files_are_refused_naming_file_and_key(text, expected):
    with pytest.raises(RegistryError) as caught:
        Registry.from_toml_text(text, source="tags.toml")
    assert str(caught.value).startswith(f"tags.toml: {expected}"), str(caught.value)


def test_load_errors_name_the_path(tmp_path):
    with pytest.raises(RegistryError, match=r"missing\.toml: cannot read registry file"):
        Registry.load(tmp_path / "missing.toml")
    path = tmp_path / "tags.toml"
    path.write_text('[tags]\n"E004015012345678" = "purple"\n')
    with pytest.raises(RegistryError) as caught:
        Registry.load(path)
    assert str(caught.value).startswith(f'{path}: tags."E004015012345678": unknown piece text')
