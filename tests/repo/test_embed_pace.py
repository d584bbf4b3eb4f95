"""An embedding worker's pace: quick batches grow, slow ones shrink back, within bounds; the
notice is renewed at half its life (repo/embed_pace.py). Time is a fake clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cardchat.repo.embed_pace import MAX_GROWTH, MIN_BATCH_S, SLOW_BATCH_S, Pace

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _batch(pace: Pace, clock: Clock, seconds: float) -> int:
    pace.batch_started()
    clock.t += seconds
    pace.batch_done()
    return pace.batch


def test_quick_batches_grow_up_to_the_cap_and_slow_ones_shrink_to_the_floor() -> None:
    clock = Clock()
    pace = Pace(64, timedelta(seconds=60), monotonic=clock)
    sizes = [_batch(pace, clock, MIN_BATCH_S / 4) for _ in range(4)]
    assert sizes == [128, 256, 64 * MAX_GROWTH, 64 * MAX_GROWTH]
    assert _batch(pace, clock, (MIN_BATCH_S + SLOW_BATCH_S) / 2) == 64 * MAX_GROWTH  # in between: kept
    sizes = [_batch(pace, clock, SLOW_BATCH_S * 2) for _ in range(3)]
    assert sizes == [128, 64, 64]


def test_a_size_set_by_hand_is_kept() -> None:
    clock = Clock()
    pace = Pace(1, timedelta(seconds=60), adaptive=False, monotonic=clock)
    assert [_batch(pace, clock, 0.01) for _ in range(3)] == [1, 1, 1]


def test_the_notice_is_renewed_at_half_its_life() -> None:
    pace = Pace(64, timedelta(seconds=60))
    assert pace.notice_due(T0)  # never written by this pace
    pace.announced(T0)
    assert not pace.notice_due(T0 + timedelta(seconds=29))
    assert pace.notice_due(T0 + timedelta(seconds=30))
