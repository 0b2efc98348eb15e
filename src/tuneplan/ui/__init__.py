"""Tuneplan's Qt user interface (PySide6 + pyqtgraph). Imported only by the GUI, never by the core or the CLI."""
