"""The [store] section of the table configuration."""

from __future__ import annotations

import pytest

from homeworlds.runtime.config import ConfigError, load_config


def _config(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_config(path)


def test_store_path_is_relative_to_the_configuration(tmp_path):
    config = _config(tmp_path, '[store]\npath = "records/club.sqlite"\ntable = "table-3"\n')
    assert config.store_path == tmp_path / "records" / "club.sqlite"
    assert config.store_table == "table-3"


def test_without_a_store_section_play_uses_its_defaults(tmp_path):
    config = _config(tmp_path, '[table]\nrules = "looney"\n')
    assert (config.store_path, config.store_table) == (None, None)


@pytest.mark.parametrize("text, key", [
    ('[store]\npath = 3\n', "store.path"),
    ('[store]\ntable = ""\n', "store.table"),
    ('[store]\nfile = "x.sqlite"\n', "store.file"),
])
def test_a_wrong_store_key_names_file_and_key(tmp_path, text, key):
    with pytest.raises(ConfigError) as error:
        _config(tmp_path, text)
    assert error.value.key == key and "table.toml" in str(error.value)
