"""PyInstaller entry script: the same ``main()`` as the ``tuneplan`` console/GUI script.

Importing ``tuneplan.__main__`` as a module (instead of freezing that file as the script) keeps its
name ``tuneplan.__main__``, exactly as the pip-installed entry point sees it.
"""

import sys

from tuneplan.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
