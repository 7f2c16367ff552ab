"""Labels of swept config values (wildcard values of the sweep jobs) and their inverse."""

import pytest

from dpgrid.core.sweeps import sweep_label, sweep_labels, swept_value


def test_label_is_six_significant_digits_without_trailing_zeros():
    assert [sweep_label(v) for v in (1.0, 0.5, 0.68571428, 2, 1e-7, 12345678.0)] == [
        "1",
        "0.5",
        "0.685714",
        "2",
        "1e-07",
        "1.23457e+07",
    ]


def test_labels_keep_order_and_reject_collisions():
    assert sweep_labels([0.1, 1, 0.01], "a.b") == ["0.1", "1", "0.01"]
    with pytest.raises(ValueError, match=r"field a\.b = \[0\.1234561, 0\.1234562\].*share a file-name label"):
        sweep_labels([0.1234561, 0.1234562], "a.b")


def test_swept_value_inverts_the_label():
    values = [0.05, 0.1, 0.68571428, 3]
    for v in values:
        assert swept_value(values, sweep_label(v), "x.grid", "eps") == float(v)
    with pytest.raises(ValueError, match=r"field x\.grid .* 0 entries labelled '0\.2' \(wildcard eps\)"):
        swept_value(values, "0.2", "x.grid", "eps")
    with pytest.raises(ValueError, match="2 entries"):
        swept_value([0.1234561, 0.1234562], "0.123456", "x.grid", "eps")
