"""How old a price is on the day the app runs, and what the bundled rows say about their nodes (issue #19)."""

from __future__ import annotations

from datetime import date

import pytest

from tuneplan import catalog
from tuneplan.catalog.prices import OLD_PRICE_DAYS, is_old_price, price_age_days, seen_on

TODAY = date(2026, 12, 2)


@pytest.mark.parametrize(("seen", "age", "old"), [
    ("2026-12-02", 0, False),
    ("2026-09-03", 90, False),  # exactly the cutoff: not yet old
    ("2026-09-02", 91, True),
    ("2026-11-09 (read_on)", 23, False),  # a date followed by text
    ("2026-08", 123, True),  # a month counts from its first day
    ("2020-02-13", 2484, True),
    ("2027-01-05", 0, False),  # a date after today
    ("undated (catalog snapshot)", None, False),
    ("", None, False),
    ("2026-02-30", None, False),  # not a day
    ("2026-11-091", None, False),
])
def test_age_and_old_mark(seen, age, old):
    assert price_age_days(seen, TODAY) == age
    assert is_old_price(seen, TODAY) is old


def test_the_cutoff_is_a_quarter_and_can_be_given():
    assert OLD_PRICE_DAYS == 90
    assert is_old_price("2026-11-01", TODAY, max_days=30) and not is_old_price("2026-11-02", TODAY, max_days=30)
    assert seen_on("2026-11") == date(2026, 11, 1) and seen_on("soon") is None


def test_bundled_rows_say_their_node_size_where_the_label_does():
    by_label = {(p.provider, p.gpu_label): p for p in catalog.list_prices()}
    assert by_label[("AWS", "H100 SXM 80GB (p5.48xlarge, 8x)")].gpus_per_node == 8
    assert by_label[("Lambda", "H100 SXM 80GB (1x)")].gpus_per_node == 1
    assert by_label[("RunPod", "RTX 4090 24GB")].gpus_per_node == 0  # not said
    assert all(p.interconnect == "" for p in catalog.list_prices())  # the reference file never states it
    # on the day these tests pin, the bundled list has old rows and recent ones
    flags = [is_old_price(p.date_seen, TODAY) for p in catalog.list_prices()]
    assert 0 < sum(flags) < len(flags)
