"""The bench's interleaved timing, without a GPU: every function once per round in a shuffled order, the median
round kept."""
from cutlassgen import timing


def test_interleaved_median_ms_times_each_once_per_round_and_takes_the_median(monkeypatch):
    calls = []
    samples = {"a": iter([5.0, 1.0, 3.0]), "b": iter([2.0, 9.0, 4.0])}

    def fake_median_ms(fn, reps, settle_ms, before):
        assert reps == 7 and settle_ms == 0.0 and before is None
        name = fn()
        calls.append(name)
        return next(samples[name])

    monkeypatch.setattr(timing, "median_ms", fake_median_ms)
    got = timing.interleaved_median_ms({"a": lambda: "a", "b": lambda: "b"}, rounds=3, reps=7)
    assert [sorted(calls[i:i + 2]) for i in (0, 2, 4)] == [["a", "b"]] * 3
    assert got == {"a": 3.0, "b": 4.0}


def test_interleaved_order_changes_between_rounds_and_is_seeded(monkeypatch):
    def run(seed):
        calls = []
        monkeypatch.setattr(timing, "median_ms", lambda fn, reps, settle_ms, before: calls.append(fn()) or 1.0)
        timing.interleaved_median_ms({n: (lambda n=n: n) for n in "abcdefgh"}, rounds=4, reps=1, seed=seed)
        return calls

    calls = run(0)
    rounds = [calls[i:i + 8] for i in range(0, 32, 8)]
    assert all(sorted(r) == list("abcdefgh") for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1  # not the same order every round
    assert run(0) == calls and run(1) != calls


def test_rounds_are_kept_in_order_and_paired_ratio_compares_them_round_by_round(monkeypatch):
    samples = {"ours": iter([1.0, 2.0, 1.0, 1.0, 1.25]), "theirs": iter([1.1, 1.0, 1.0, 0.9, 1.5])}
    monkeypatch.setattr(timing, "median_ms", lambda fn, reps, settle_ms, before: next(samples[fn()]))
    rounds = timing.interleaved_rounds_ms({"ours": lambda: "ours", "theirs": lambda: "theirs"}, rounds=5, reps=1)
    assert rounds == {"ours": [1.0, 2.0, 1.0, 1.0, 1.25], "theirs": [1.1, 1.0, 1.0, 0.9, 1.5]}
    r = timing.paired_ratio(rounds["ours"], rounds["theirs"])  # per round: 1.1, 0.5, 1.0, 0.9, 1.2
    assert (r.median, r.q1, r.q3, r.wins, r.rounds) == (1.0, 0.9, 1.1, 3, 5)
    assert str(r) == "1.000 (quartiles 0.900-1.100; ours >= in 3 of 5 rounds)"


def test_paired_ratio_refuses_unpaired_rounds():
    import pytest

    with pytest.raises(ValueError, match="equal"):
        timing.paired_ratio([1.0, 2.0], [1.0])


class _FakeClock:
    """torch.cuda's events, synchronize and _sleep over a clock that only fn() advances (2 ms a call)."""
    def __init__(self):
        self.now = 0.0

    def event(self, enable_timing=True):
        clock = self

        class Event:
            def record(self):
                self.at = clock.now

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return end.at - self.at
        return Event()


def test_median_ms_settles_for_about_settle_ms_before_timing(monkeypatch):
    import torch

    clock, calls = _FakeClock(), []
    monkeypatch.setattr(torch.cuda, "Event", clock.event)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: None)

    def fn():
        calls.append(clock.now)
        clock.now += 2.0

    assert timing.median_ms(fn, reps=3, warmup=5, settle_ms=50.0) == 2.0
    assert len(calls) == 25 + 3  # 10 ms of warm-up, then 20 more calls to reach 50 ms, then the 3 timed runs
    calls.clear()
    timing.median_ms(fn, reps=3, warmup=5)  # no settling asked for: warm-up and timed runs only
    assert len(calls) == 5 + 3


def test_median_ms_runs_before_ahead_of_every_timed_run_outside_its_events(monkeypatch):
    import torch

    clock, order = _FakeClock(), []
    monkeypatch.setattr(torch.cuda, "Event", clock.event)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: None)

    def flush():  # 100 ms of GPU time that must not count
        order.append("flush")
        clock.now += 100.0

    def fn():
        order.append("fn")
        clock.now += 2.0

    assert timing.median_ms(fn, reps=3, warmup=2, before=flush) == 2.0
    assert order == ["fn", "fn"] + ["flush", "fn"] * 3  # the warm-up runs without it
