"""Why a test that needs the real photos skips (shared by the tests that use them)."""

from __future__ import annotations

#: Where the photos were looked for, and how to point the tests elsewhere
#: (``datasets.real_photos.realdata_root``: ``$DOMINOCAST_REALDATA`` overrides the default).
REALDATA_MISSING = ("real photos not found at <repo>/../shared/realdata (set $DOMINOCAST_REALDATA to their "
                    "folder to run these; evaluation only, not distributed)")
