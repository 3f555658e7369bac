"""The bench's interleaved timing, without a GPU: every function once per round in turn, the median round kept."""
from cutlassgen import timing


def test_interleaved_median_ms_alternates_and_takes_the_median(monkeypatch):
    calls = []
    samples = {"a": iter([5.0, 1.0, 3.0]), "b": iter([2.0, 9.0, 4.0])}

    def fake_median_ms(fn, reps):
        name = fn()
        calls.append(name)
        return next(samples[name])

    monkeypatch.setattr(timing, "median_ms", fake_median_ms)
    got = timing.interleaved_median_ms({"a": lambda: "a", "b": lambda: "b"}, rounds=3, reps=7)
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert got == {"a": 3.0, "b": 4.0}
