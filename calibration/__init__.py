"""Camera and table calibration: lens intrinsics, the table-plane homography, the
per-table profile (JSON), rectified top-down images and printable marker sheets.

Conventions (see docs/calibration.md): image points are OpenCV pixels (integer
coordinates are pixel centres); table points are millimetres with the origin at the
corner of marker 0, x towards marker 1 and y towards marker 3.
"""

from calibration.errors import CalibrationError
from calibration.lens import BoardSpec, LensCalibration, calibrate_lens, calibrate_lens_files, detect_board
from calibration.markers import checkerboard_sheet, marker_sheet, write_png
from calibration.profile import PROFILE_VERSION, ReprojectionErrors, TableProfile, TileSize, load_profile
from calibration.rectify import rectify_frame, rectify_maps
from calibration.seats import parse_seat_spec
from calibration.table import (TableFit, calibrate_table_from_markers, calibrate_table_from_points,
                               detect_corner_markers, fit_table_homography, marker_centres_mm)

__all__ = [
    "PROFILE_VERSION", "BoardSpec", "CalibrationError", "LensCalibration", "ReprojectionErrors",
    "TableFit", "TableProfile", "TileSize", "calibrate_lens", "calibrate_lens_files",
    "calibrate_table_from_markers", "calibrate_table_from_points", "checkerboard_sheet",
    "detect_board", "detect_corner_markers", "fit_table_homography", "load_profile",
    "marker_centres_mm", "marker_sheet", "parse_seat_spec", "rectify_frame", "rectify_maps",
    "write_png",
]
