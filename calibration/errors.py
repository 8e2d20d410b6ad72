"""The one exception type raised by the calibration package."""

from __future__ import annotations


class CalibrationError(ValueError):
    """Bad calibration input or a calibration that cannot be computed.

    Raised for: unreadable or missing files, files that are not images, boards or
    markers that cannot be found, degenerate point sets, and calibration profiles that
    are corrupt, of an unsupported version, or lack the data an operation needs.
    The message is a single line meant for end users; it names the file involved when
    there is one.
    """
