"""``python -m pktlab study FIG [--ray ADDRESS] …``: see :func:`pktlab.aqm.main`."""

import sys

from .aqm import main

sys.exit(main())
