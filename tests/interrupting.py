"""A Ctrl-C in the middle of a long job, for tests of what an interrupted command leaves behind."""

from __future__ import annotations


def interrupt_at(monkeypatch, module, name: str, call: int) -> list:
    """Replace ``module.name`` so that its ``call``-th call raises KeyboardInterrupt (the earlier ones run
    the real function); returns the list of calls made so far (clear it to start counting again)."""
    real = getattr(module, name)
    calls: list = []

    def stop_midway(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stop_midway)
    return calls
