"""helper-187: halves with more pips than the pip reader's classes (a double-nine or -twelve set's) are flagged,
not read surely as the top class: :func:`vision.pip_reader.cross_check`'s ``found``."""

from __future__ import annotations

import numpy as np

from vision.pip_reader import BEYOND_CONF_SCALE, beyond_set_message, cross_check


def _probs(values, p=0.97, classes=7):
    out = np.full((len(values), 2, classes), (1 - p) / (classes - 1), np.float32)
    for i, pair in enumerate(values):
        for k, v in enumerate(pair):
            out[i, k, v] = p
    return out


def test_a_half_with_two_or_more_pips_over_the_classes_is_beyond_the_set_and_not_sure():
    probs = _probs([(6, 6), (6, 3), (6, 6)])
    none = np.full((3, 2), -1)
    found = np.array([[12, 9], [7, -1], [6, 6]])  # a 12|9, a 7 (one over: a speck now and then), a real 6|6
    hr = cross_check(probs, none, np.zeros((3, 2)), found)
    assert hr.beyond.tolist() == [[True, True], [False, False], [False, False]]
    assert np.allclose(hr.conf[0], 0.97 * BEYOND_CONF_SCALE) and np.allclose(hr.conf[1:], 0.97)
    assert hr.values.tolist() == [[6, 6], [6, 3], [6, 6]]  # the reading stays: the flag says it is wrong
    assert hr.subset(np.array([False, True, True])).beyond.tolist() == [[False, False], [False, False]]
    assert hr.found.tolist() == found.tolist()
    # without counts (the old call) nothing is beyond
    assert not cross_check(probs, none, np.zeros((3, 2))).beyond.any()


def test_the_messages_are_short():
    assert beyond_set_message(4) == ("4 tiles show more than 6 pips on a half (flag pips_beyond_set): a double-nine "
                                     "or -twelve set? The models read 0..6 only")
    lines = beyond_set_message(7, 6, 58).split("\n")
    assert lines == ["tiles with more than 6 pips on a half in 58 reads (up to 7 a read): a double-nine or -twelve "
                     "set?", "  the models read pips 0..6 only: only double-six footage can be reviewed"]
    assert max(map(len, lines)) <= 100
