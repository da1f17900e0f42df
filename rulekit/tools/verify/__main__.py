"""``python -m rulekit.tools.verify RULESET ...``: verify on its own."""

import sys

from rulekit.tools.verify.command import main

sys.exit(main())
