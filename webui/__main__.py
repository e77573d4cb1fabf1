import sys

from rolit.webui.cli import main

sys.exit(main())
