"""`python -m reference_server`: the same as the `reference-server` command."""

import sys

from reference_server.cli import main

sys.exit(main())
