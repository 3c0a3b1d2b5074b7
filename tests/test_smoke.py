import pytest

from embedanon import Anonymizer


@pytest.mark.default_embedding
def test_default_anonymizer_changes_every_word() -> None:
    out = Anonymizer(seed=1).anonymize("John Smith has chest pain")
    assert len(out.split()) == 5
    for a, b in zip("John Smith has chest pain".split(), out.split()):
        assert a.lower() != b.lower()
