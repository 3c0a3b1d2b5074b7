"""SurrogateConfig: frozen, hashable, validated with one-line errors naming the key."""

from __future__ import annotations

import dataclasses

import pytest

from embedanon.errors import ConfigError
from embedanon.surrogates import SurrogateConfig


def test_defaults_are_hashable_and_frozen():
    config = SurrogateConfig()
    assert hash(config) == hash(SurrogateConfig())
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.phone_format = "keep-shape"  # type: ignore[misc]


def test_a_weighted_mix_is_a_sorted_tuple_of_pairs():
    config = SurrogateConfig(name_cultures={"hispanic": 1, "anglo": 2.5})
    assert config.name_cultures == (("anglo", 2.5), ("hispanic", 1.0))
    assert config.name_mix() == (("anglo", 2.5), ("hispanic", 1.0))
    assert config == SurrogateConfig(name_cultures=[("hispanic", 1.0), ("anglo", 2.5)])  # type: ignore[arg-type]
    hash(config)
    assert len(SurrogateConfig().name_mix()) == 8 and {w for _, w in SurrogateConfig().name_mix()} == {1.0}


def test_the_safe_defaults():
    """Issue 33: culture from a fixed mix, any gender, record consistency, neutral formats."""
    config = SurrogateConfig()
    assert (config.name_cultures, config.name_gender, config.consistency) == ("mixed", "any", "record")
    assert (config.phone_format, config.id_format) == ("neutral", "neutral")


def test_lists_become_tuples():
    config = SurrogateConfig(name_cultures=["african", "en_GB"], email_domains=["Example.COM"])  # type: ignore[arg-type]
    assert config.name_cultures == ("african", "en_GB")
    assert config.email_domains == ("example.com",)
    hash(config)


@pytest.mark.parametrize(
    ("kwargs", "key", "valid"),
    [
        ({"name_cultures": "klingon"}, "name_cultures", "'mixed'"),
        ({"name_cultures": ("xx_YY",)}, "name_cultures", "african"),
        ({"name_cultures": ()}, "name_cultures", "'mixed'"),
        ({"name_cultures": {"anglo": 0}}, "name_cultures", "finite number > 0"),
        ({"name_cultures": {"anglo": float("nan")}}, "name_cultures", "finite number > 0"),
        ({"name_cultures": {"anglo": True}}, "name_cultures", "finite number > 0"),
        ({"name_cultures": {"klingon": 1.0}}, "name_cultures", "african"),
        ({"name_cultures": ("anglo", "anglo")}, "name_cultures", "twice"),
        ({"name_gender": "female"}, "name_gender", "'any', 'keep'"),
        ({"consistency": "global"}, "consistency", "'corpus', 'record'"),
        ({"phone_format": "american"}, "phone_format", "'neutral', 'keep-shape'"),
        ({"phone_format": "###"}, "phone_format", "at least 7 '#'"),
        ({"phone_format": 7}, "phone_format", "'neutral'"),
        ({"id_format": "hidden"}, "id_format", "'keep-shape', 'neutral'"),
        ({"date_order": "ymd"}, "date_order", "'mdy', 'dmy'"),
        ({"date_shift_days": 0}, "date_shift_days", ">= 1"),
        ({"date_shift_days": 10**6}, "date_shift_days", "at most"),
        ({"age_top": 0}, "age_top", ">= 1"),
        ({"age_jitter": -1}, "age_jitter", ">= 0"),
        ({"age_jitter": True}, "age_jitter", ">= 0"),
        ({"email_domains": "gmail"}, "email_domains", "'public', 'reserved'"),
        ({"email_domains": ("not a domain",)}, "email_domains", "example.org"),
        ({"url_domains": ()}, "url_domains", "'public', 'reserved'"),
        ({"address_locales": ("xx_YY",)}, "address_locales", "en_US"),
        ({"address_locales": "en_US"}, "address_locales", "list of Faker locales"),
        ({"consistency": "global"}, "consistency", "'corpus', 'record'"),
    ],
)
def test_bad_values_are_one_line_config_errors_naming_key_and_valid_values(kwargs, key, valid):
    with pytest.raises(ConfigError) as err:
        SurrogateConfig(**kwargs)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(key)
    assert valid in message


def test_wrong_number_type_is_a_type_error():
    with pytest.raises(TypeError, match="date_shift_days"):
        SurrogateConfig(date_shift_days=1.5)  # type: ignore[arg-type]


def test_custom_phone_pattern_and_reserved_domains_are_accepted():
    config = SurrogateConfig(phone_format="555-01##-#####", email_domains="reserved")
    assert config.domains("email_domains") == ("example.com", "example.net", "example.org")
