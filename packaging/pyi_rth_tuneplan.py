"""PyInstaller runtime hook: runs in the frozen app before ``launcher.py``.

pyqtgraph picks a Qt binding by trying PyQt6 first; only PySide6 is in the bundle, so name it and skip
the failed import. Respect a value the user set on purpose.
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
