"""Synthetic table renderer: surfaces, tile sprites, layouts, camera, effects, scenes.

Everything is deterministic given a ``numpy.random.Generator``; no global random state.
Table coordinates are millimetres on the table plane (x right, y down, z up);
image coordinates are pixels (x right, y down).
"""
