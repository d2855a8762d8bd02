"""``python -m hpcnetsim`` is the ``hpcnetsim`` command."""

import sys

from .cli import main

sys.exit(main())
