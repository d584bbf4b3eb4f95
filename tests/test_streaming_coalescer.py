"""The coalescer's flush policy on a fake clock, and the background writer's
ordering, completeness and error hand-over on a real thread (no Firestore)."""

from __future__ import annotations

import threading
import time

import pytest

from cardchat.streaming import Coalescer, StreamWriter, WriterFailed


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def test_first_delta_flushes_at_once_then_at_most_one_flush_per_interval():
    clock = FakeClock()
    c = Coalescer(interval=0.2, max_chars=2000, clock=clock)
    assert c.seconds_until_due() is None
    c.add("Hello")
    assert c.seconds_until_due() == 0.0
    assert c.take_due() == "Hello"

    c.add(" wor")
    clock.advance(0.05)
    c.add("ld")
    assert c.take_due() is None
    assert c.seconds_until_due() == pytest.approx(0.15)
    clock.advance(0.15)
    assert c.take_due() == " world"
    assert c.take_due() is None  # nothing pending
    assert c.flushes == 2


def test_a_delta_after_a_long_pause_goes_out_at_once():
    clock = FakeClock()
    c = Coalescer(interval=0.2, clock=clock)
    c.add("a")
    assert c.take_due() == "a"
    clock.advance(3.0)
    c.add("b")
    assert c.take_due() == "b"


def test_size_bound_flushes_before_the_interval():
    clock = FakeClock()
    c = Coalescer(interval=0.2, max_chars=10, clock=clock)
    c.add("x")
    c.take_due()
    c.add("12345")
    assert c.take_due() is None
    c.add("67890")
    assert c.pending == 10
    assert c.take_due() == "1234567890"


def test_drain_returns_everything_and_flushes_partition_the_input():
    clock = FakeClock()
    c = Coalescer(interval=0.2, max_chars=50, clock=clock)
    deltas = [f"tok{i} " for i in range(200)]
    out = []
    for i, d in enumerate(deltas):
        c.add(d)
        clock.advance(0.013 * (1 + i % 3))
        text = c.take_due()
        if text:
            out.append(text)
    rest = c.drain()
    if rest:
        out.append(rest)
    assert c.drain() is None
    assert "".join(out) == "".join(deltas)
    assert all(out)
    # ~5.2 s of simulated generation: at most one flush per 0.2 s, or a full 50 chars
    assert len(out) < len(deltas) / 4


def test_empty_deltas_are_ignored():
    c = Coalescer(clock=FakeClock())
    c.add("")
    assert c.seconds_until_due() is None
    assert c.drain() is None


class Sink:
    def __init__(self, delay: float = 0.0, fail_at: int | None = None) -> None:
        self.delay = delay
        self.fail_at = fail_at
        self.chunks: list[tuple[int, str, bool, float]] = []
        self.renewals = 0
        self.lock = threading.Lock()

    def write(self, index: int, text: str, renew: bool) -> None:
        if self.fail_at is not None and index == self.fail_at:
            raise RuntimeError("store unavailable")
        time.sleep(self.delay)
        with self.lock:
            self.chunks.append((index, text, renew, time.monotonic()))

    def renew(self) -> None:
        self.renewals += 1


def test_writer_keeps_order_and_every_delta_and_does_not_block_the_producer():
    sink = Sink(delay=0.15)  # a slow write: a put that waited for it would take 150 ms
    writer = StreamWriter(sink.write, sink.renew, renew_every=10.0, interval=0.05)
    deltas = [f"w{i} " for i in range(300)]
    slowest_put = 0.0
    started = time.monotonic()
    for d in deltas:
        t = time.monotonic()
        writer.put(d)
        slowest_put = max(slowest_put, time.monotonic() - t)
        time.sleep(0.001)
    produced = time.monotonic() - started
    n = writer.close()

    assert [c[0] for c in sink.chunks] == list(range(n))
    assert "".join(c[1] for c in sink.chunks) == "".join(deltas)
    assert slowest_put < 0.1  # a 150 ms write never held the stream up (slack for a loaded machine)
    # one flush per 50 ms (plus the immediate first one and the final drain)
    assert n <= produced / 0.05 + 3
    assert n < len(deltas) / 5


def test_writer_flushes_pending_text_on_time_even_when_the_model_pauses():
    sink = Sink()
    writer = StreamWriter(sink.write, sink.renew, renew_every=10.0, interval=0.05)
    writer.put("first")
    time.sleep(0.01)
    writer.put(" second")  # arrives right after the first flush: held for the interval
    time.sleep(0.5)  # the model is silent; the held text must not wait for the next delta (due after 0.05 s)
    assert [c[1] for c in sink.chunks] == ["first", " second"]
    writer.close()
    assert len(sink.chunks) == 2


def test_writer_renews_the_lease_while_the_model_is_silent():
    sink = Sink()
    writer = StreamWriter(sink.write, sink.renew, renew_every=0.1, interval=0.01)
    time.sleep(0.55)
    writer.close()
    assert 2 <= sink.renewals <= 6  # ~5 on time; wide, for a loaded machine
    assert sink.chunks == []


def test_writer_carries_renewals_on_chunks_while_text_flows():
    sink = Sink()
    # Wall-clock timing: the renewal period is 17 gaps between puts, so only a
    # pause of the test thread over 0.4 s (a loaded CI machine made 0.1 s
    # flaky) could make a renewal go out on its own.
    writer = StreamWriter(sink.write, sink.renew, renew_every=0.4, interval=0.12)
    for i in range(60):  # ~1.4 s of steady text
        writer.put(f"t{i} ")
        time.sleep(0.024)
    writer.close()
    assert sink.renewals == 0
    assert sum(1 for c in sink.chunks if c[2]) >= 2


def test_writer_error_stops_the_producer_and_close_reports_it():
    sink = Sink(fail_at=1)
    writer = StreamWriter(sink.write, sink.renew, renew_every=10.0, interval=0.01)
    writer.put("a")
    deadline = time.monotonic() + 2
    with pytest.raises(WriterFailed) as raised:
        while time.monotonic() < deadline:
            writer.put("b")
            time.sleep(0.005)
    assert isinstance(raised.value.__cause__, RuntimeError)
    with pytest.raises(WriterFailed):
        writer.close()


def test_close_without_flush_drops_pending_text():
    sink = Sink()
    writer = StreamWriter(sink.write, sink.renew, renew_every=10.0, interval=5.0)
    writer.put("a")
    time.sleep(0.05)
    writer.put("b")  # held: the interval is long
    writer.close(flush=False)
    assert [c[1] for c in sink.chunks] == ["a"]
