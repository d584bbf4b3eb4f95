"""The flush and lease-renewal policy on a fake clock, and the background
writer's ordering, completeness and error hand-over on a real thread (no
Firestore, and no assertion that depends on how fast the machine is)."""

from __future__ import annotations

import threading
import time

import pytest

from cardchat.generation.chunk_writer import Chunk, ChunkPlan, Coalescer, Renewal, StreamWriter, WriterFailed


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


def plan(renew_every: float, interval: float, clock: FakeClock) -> ChunkPlan:
    return ChunkPlan(renew_every, Coalescer(interval, 2000, clock), clock)


def test_plan_carries_renewals_on_chunks_while_text_flows():
    clock = FakeClock()
    p = plan(renew_every=0.4, interval=0.12, clock=clock)
    actions = []
    for i in range(60):  # 1.44 s of steady text, a delta every 24 ms
        p.add(f"t{i} ")
        actions.append(p.next())
        clock.advance(0.024)
    chunks = [a for a in actions if isinstance(a, Chunk)]
    assert not any(isinstance(a, Renewal) for a in actions)
    # due at 0.4 s, then 0.4 s after the chunk that carried it: each rode on a chunk
    assert sum(c.renew for c in chunks) == 2
    assert "".join(c.text for c in chunks) + (p.drain() or Chunk("", False)).text == "".join(
        f"t{i} " for i in range(60)
    )


def test_plan_renews_on_its_own_only_after_a_flush_interval_of_silence():
    clock = FakeClock()  # binary fractions keep the fake clock exact
    p = plan(renew_every=0.5, interval=0.125, clock=clock)
    clock.advance(0.5)  # renewal due: it waits one interval for a chunk to ride on
    assert p.next() is None
    assert p.seconds_until_next() == 0.125
    clock.advance(0.125)
    assert p.next() == Renewal()
    assert p.next() is None  # the next one is due a whole period later
    assert p.seconds_until_next() == 0.625
    renewals = 1
    for _ in range(20):  # 2.5 s more of silence: due at 1.25, 1.875, 2.5, 3.125 s
        clock.advance(0.125)
        renewals += p.next() == Renewal()
    assert renewals == 5


def test_plan_lets_a_due_renewal_ride_on_pending_text_held_past_the_interval():
    clock = FakeClock()
    p = plan(renew_every=0.1, interval=0.05, clock=clock)
    p.add("a")
    assert p.next() == Chunk("a", False)
    clock.advance(0.1)
    p.add("b")
    assert p.next() == Chunk("b", True)


def test_plan_holds_text_that_comes_right_after_a_flush_for_one_interval():
    clock = FakeClock()
    p = plan(renew_every=10.0, interval=0.05, clock=clock)
    p.add("first")
    assert p.next() == Chunk("first", False)
    clock.advance(0.01)
    p.add(" second")
    assert p.next() is None
    assert p.seconds_until_next() == pytest.approx(0.04)  # the writer wakes for it without a new delta
    clock.advance(0.04)
    assert p.next() == Chunk(" second", False)


class Sink:
    def __init__(self, fail_at: int | None = None, gate: threading.Event | None = None) -> None:
        self.fail_at = fail_at
        self.gate = gate
        self.chunks: list[tuple[int, str, bool]] = []
        self.renewals = 0
        self.lock = threading.Lock()

    def write(self, index: int, text: str, renew: bool) -> None:
        if self.fail_at is not None and index == self.fail_at:
            raise RuntimeError("store unavailable")
        if self.gate is not None:
            assert self.gate.wait(30), "the test never opened the gate"
        with self.lock:
            self.chunks.append((index, text, renew))

    def renew(self) -> None:
        self.renewals += 1


def wait_until(predicate, seconds: float = 10.0) -> bool:
    """Polls; the bound is only there so a broken writer fails instead of hanging."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_writer_keeps_order_and_every_delta_and_does_not_block_the_producer():
    gate = threading.Event()
    sink = Sink(gate=gate)  # every write blocks until the producer is done
    writer = StreamWriter(sink.write, sink.renew, renew_every=60.0, interval=0.05)
    deltas = [f"w{i} " for i in range(300)]
    for d in deltas:
        writer.put(d)  # would deadlock here if a put waited for a write
    gate.set()
    n = writer.close()
    assert [c[0] for c in sink.chunks] == list(range(n))
    assert "".join(c[1] for c in sink.chunks) == "".join(deltas)
    assert n <= 3  # the first delta, then one flush for all that queued behind the blocked write, then the drain


def test_writer_flushes_pending_text_when_the_model_pauses():
    sink = Sink()
    writer = StreamWriter(sink.write, sink.renew, renew_every=60.0, interval=0.05)
    writer.put("first")
    assert wait_until(lambda: len(sink.chunks) == 1)
    writer.put(" second")  # held for the interval; no further delta comes to push it out
    assert wait_until(lambda: len(sink.chunks) == 2)
    writer.close()
    assert [c[1] for c in sink.chunks] == ["first", " second"]


def test_writer_renews_the_lease_while_the_model_is_silent():
    sink = Sink()
    writer = StreamWriter(sink.write, sink.renew, renew_every=0.05, interval=0.01)
    assert wait_until(lambda: sink.renewals >= 3)
    writer.close()
    assert sink.chunks == []


def test_writer_error_stops_the_producer_and_close_reports_it():
    sink = Sink(fail_at=1)
    writer = StreamWriter(sink.write, sink.renew, renew_every=10.0, interval=0.01)
    writer.put("a")
    deadline = time.monotonic() + 30  # a bound so a broken writer fails instead of hanging
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
    assert wait_until(lambda: len(sink.chunks) == 1)
    writer.put("b")  # held: the interval is long
    writer.close(flush=False)
    assert [c[1] for c in sink.chunks] == ["a"]
